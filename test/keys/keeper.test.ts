import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRingKeeper, KeyRingSealError } from '../../src/keys/keeper.js';
import { KeyRing } from '../../src/keys/key-ring.js';
import { KeySealer } from '../../src/keys/sealing.js';
import type { Logger } from '../../src/log/logger.js';
import type { RedisStore } from '../../src/store/redis/store.js';
import { pino } from 'pino';
import { ManualClock } from '../helpers/clock.js';
import { rawCommand, RedisServer } from '../helpers/redis-server.js';
import { connectedStore, redisStoreConfig, silentLogger, uniqueEnvironment } from '../helpers/redis-store.js';

const HOUR = 3_600_000;
const KEK = randomBytes(32);

let redis: RedisServer;
const stores: RedisStore[] = [];
beforeAll(async () => {
  redis = await RedisServer.start();
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await redis.dispose();
});

/** One instance: its own store connection, ring and keeper, on the shared redis. */
async function instance(environment: string, clock: ManualClock, kek = KEK, logger: Logger = silentLogger) {
  const store = await connectedStore(redisStoreConfig({ mode: 'single', url: redis.url }), environment, clock);
  stores.push(store);
  const ring = new KeyRing({ algorithm: 'ES256', rotationIntervalMs: 24 * HOUR, retentionMs: HOUR, clock });
  const keeper = new KeyRingKeeper({ ring, storage: store.keyRing, sealer: new KeySealer(kek, environment), logger, clock });
  return { store, ring, keeper };
}

/** A new environment with one instance whose keeper has created the ring. */
async function firstInstance() {
  const clock = new ManualClock();
  const environment = uniqueEnvironment();
  const a = await instance(environment, clock);
  await a.keeper.sync();
  return { clock, environment, a };
}

const kids = (ring: KeyRing) => ring.list().map((key) => key.kid);

/** A logger whose lines the test reads. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }) };
}

describe('key ring keeper on a shared store', () => {
  it('creates the ring once; the next instance loads the same keys', async () => {
    const clock = new ManualClock();
    const environment = uniqueEnvironment();
    const a = await instance(environment, clock);
    const b = await instance(environment, clock);
    await Promise.all([a.keeper.sync(), b.keeper.sync()]);
    expect(kids(a.ring)).toHaveLength(2);
    expect(kids(b.ring)).toEqual(kids(a.ring));
    expect(b.ring.selectSigningKey().kid).toBe(a.ring.selectSigningKey().kid);
  });

  it('lets one of two due instances rotate, and both end with the same ring', async () => {
    const clock = new ManualClock();
    const environment = uniqueEnvironment();
    const a = await instance(environment, clock);
    const b = await instance(environment, clock);
    await a.keeper.sync();
    await b.keeper.sync();
    clock.advance(24 * HOUR);
    const changed = await Promise.all([a.keeper.maintain(), b.keeper.maintain()]);
    expect(changed.filter(Boolean)).toHaveLength(1);
    await b.keeper.sync();
    await a.keeper.sync();
    expect(kids(a.ring)).toHaveLength(3);
    expect(kids(b.ring)).toEqual(kids(a.ring));
  });

  it('writes its keys back when the store comes back empty, so issued tokens still verify', async () => {
    const { clock, environment, a } = await firstInstance();
    const before = kids(a.ring);
    await rawCommand(redis.port, 'FLUSHALL');
    await a.keeper.sync();
    const late = await instance(environment, clock);
    await late.keeper.sync();
    expect(kids(late.ring)).toEqual(before);
  });

  it('says which keys it wrote back, at warn level, when the store came back empty', async () => {
    const { clock, environment, a } = await firstInstance();
    const logged = capturedLogger();
    const b = await instance(environment, clock, KEK, logged.logger);
    await b.keeper.sync();
    await rawCommand(redis.port, 'FLUSHALL');
    await b.keeper.sync();
    expect(logged.lines.filter((line) => line.msg === 'wrote signing keys back to the store')).toEqual([
      expect.objectContaining({ level: 40, restored: kids(a.ring) }),
    ]);
  });

  it('logs no warning when it creates the first ring of an environment, or loads an intact one', async () => {
    const clock = new ManualClock();
    const environment = uniqueEnvironment();
    const logged = capturedLogger();
    const first = await instance(environment, clock, KEK, logged.logger);
    await first.keeper.sync();
    const second = await instance(environment, clock, KEK, logged.logger);
    await second.keeper.sync();
    expect(kids(second.ring)).toEqual(kids(first.ring));
    expect(logged.lines.filter((line) => (line.level as number) >= 40)).toEqual([]);
  });

  it('merges rather than diverges when a fresh instance wrote a new ring into an emptied store', async () => {
    const { clock, environment, a } = await firstInstance();
    const before = kids(a.ring);
    await rawCommand(redis.port, 'FLUSHALL');
    const fresh = await instance(environment, clock);
    await fresh.keeper.sync(); // writes its own new ring, as version 1 like a's
    await a.keeper.sync();
    await fresh.keeper.sync();
    expect(kids(a.ring)).toEqual(expect.arrayContaining(before));
    expect(kids(fresh.ring)).toEqual(kids(a.ring));
    expect(fresh.ring.selectSigningKey().kid).toBe(a.ring.selectSigningKey().kid);
  });

  it('refuses a ring sealed under another key-encryption key and leaves it untouched', async () => {
    const { clock, environment, a } = await firstInstance();
    const stored = await a.store.keyRing.load();
    const intruder = await instance(environment, clock, randomBytes(32));
    await expect(intruder.keeper.sync()).rejects.toBeInstanceOf(KeyRingSealError);
    expect(intruder.ring.loaded).toBe(false);
    expect(await a.store.keyRing.load()).toEqual(stored);
  });

  it('never stores a private key in the clear', async () => {
    const { clock, environment, a } = await firstInstance();
    const { document } = (await a.store.keyRing.load())!;
    const parsed = JSON.parse(document) as { keys: Array<{ privateJwk: unknown; publicJwk: Record<string, unknown> }> };
    for (const key of parsed.keys) {
      expect(typeof key.privateJwk).toBe('string');
      expect(key.privateJwk).toMatch(/^v1\./);
      expect(key.publicJwk).not.toHaveProperty('d');
    }
    expect(document).not.toMatch(/"d":/);
  });
});
