import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyspace } from '../../../src/store/redis/keyspace.js';
import type { RedisStore } from '../../../src/store/redis/store.js';
import { ManualClock } from '../../helpers/clock.js';
import { RedisCluster, RedisServer, rawCommand, startSentinel } from '../../helpers/redis-server.js';
import { eventually } from '../../helpers/eventually.js';
import { connectedStore, redisStoreConfig, uniqueEnvironment, untilReady } from '../../helpers/redis-store.js';
import { storeContract } from '../contract.js';

let single: RedisServer;
let cluster: RedisCluster;
let sentinelMaster: RedisServer;
let sentinel: RedisServer;

beforeAll(async () => {
  [single, cluster, sentinelMaster] = await Promise.all([RedisServer.start(), RedisCluster.start(3), RedisServer.start()]);
  sentinel = await startSentinel(sentinelMaster, 'tgmaster');
}, 60_000);

afterAll(async () => {
  await Promise.all([single?.dispose(), cluster?.dispose(), sentinel?.dispose(), sentinelMaster?.dispose()]);
});

storeContract(
  'redis (one server)',
  (clock) => connectedStore(redisStoreConfig({ mode: 'single', url: single.url }), uniqueEnvironment(), clock),
  () => new ManualClock(),
);

storeContract(
  'redis cluster (three masters)',
  (clock) => connectedStore(redisStoreConfig({ mode: 'cluster', nodes: cluster.urls }), uniqueEnvironment(), clock),
  () => new ManualClock(),
);

storeContract(
  'redis through sentinel',
  (clock) =>
    connectedStore(redisStoreConfig({ mode: 'sentinel', sentinels: [sentinel.url], name: 'tgmaster' }), uniqueEnvironment(), clock),
  () => new ManualClock(),
);

describe('redis store: instances sharing one redis', () => {
  const clock = new ManualClock();
  const open: RedisStore[] = [];
  const storeOn = async (environment: string, overrides = {}) => {
    const store = await connectedStore(redisStoreConfig({ mode: 'single', url: single.url }, overrides), environment, clock);
    open.push(store);
    return store;
  };
  afterAll(() => Promise.all(open.map((store) => store.close())));

  it('propagates a revocation from one instance to the mirror of another', async () => {
    const environment = uniqueEnvironment();
    const [a, b] = [await storeOn(environment), await storeOn(environment)];
    await a.revocations.add({ kind: 'token', id: 'jti-shared', expiresAt: clock.now() + 60_000 });
    await eventually(() => b.revocations.isRevoked('token', 'jti-shared'));
  });

  it('loads the revocations made before it started', async () => {
    const environment = uniqueEnvironment();
    const a = await storeOn(environment);
    await a.revocations.add({ kind: 'grant', id: 'old-grant', expiresAt: clock.now() + 60_000 });
    const late = await storeOn(environment);
    expect(late.revocations.isRevoked('grant', 'old-grant')).toBe(true);
  });

  it('keeps environments apart on the same redis', async () => {
    const [sandbox, production] = [await storeOn(uniqueEnvironment()), await storeOn(uniqueEnvironment())];
    await sandbox.revocations.add({ kind: 'token', id: 'jti-sandbox', expiresAt: clock.now() + 60_000 });
    await sandbox.refreshTokens.save({ grantId: 'g', hash: 'h' }, { grantId: 'g', clientId: 'app', username: 'u', issuedAt: clock.now(), expiresAt: clock.now() + 60_000 });
    await sandbox.keyRing.save({ version: 1, document: 'sandbox ring' }, 0);
    for (const other of [production]) {
      expect(other.revocations.isRevoked('token', 'jti-sandbox')).toBe(false);
      expect(await other.refreshTokens.find({ grantId: 'g', hash: 'h' })).toBeUndefined();
      expect(await other.keyRing.load()).toBeUndefined();
    }
  });

  it('lets exactly one of two instances rotate the same refresh token; the other retries it within the grace window, or replays it without one', async () => {
    const environment = uniqueEnvironment();
    const [a, b] = [await storeOn(environment), await storeOn(environment)];
    const record = { grantId: 'g', clientId: 'app', username: 'u', issuedAt: clock.now(), expiresAt: clock.now() + 60_000 };
    for (let round = 0; round < 10; round++) {
      const ref = { grantId: 'g', hash: `h${round}` };
      const grace = { windowMs: round % 2 === 0 ? 30_000 : 0, maxRetries: 5 };
      await a.refreshTokens.save(ref, record);
      const outcomes = await Promise.all([
        a.refreshTokens.rotate(ref, { hash: `a${round}`, salt: 'a', record }, clock.now(), grace),
        b.refreshTokens.rotate(ref, { hash: `b${round}`, salt: 'b', record }, clock.now(), grace),
      ]);
      expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(grace.windowMs > 0 ? ['retried', 'rotated'] : ['reused', 'rotated']);
      const winner = outcomes[0]?.kind === 'rotated' ? `a${round}` : `b${round}`;
      if (grace.windowMs > 0) expect(outcomes.find((outcome) => outcome.kind === 'retried')).toMatchObject({ successorHash: winner });
    }
  });

  it('gives the key ring lock to one instance until it is released', async () => {
    const environment = uniqueEnvironment();
    const [a, b] = [await storeOn(environment), await storeOn(environment)];
    const release = await a.keyRing.tryLock(10_000);
    expect(release).toBeDefined();
    expect(await b.keyRing.tryLock(10_000)).toBeUndefined();
    await release?.();
    expect(await b.keyRing.tryLock(10_000)).toBeDefined();
  });

  it('tells other instances when the key ring changed', async () => {
    const environment = uniqueEnvironment();
    const [a, b] = [await storeOn(environment), await storeOn(environment)];
    let told = 0;
    b.keyRing.onChange(() => told++);
    await a.keyRing.save({ version: 1, document: 'ring' }, 0);
    await eventually(() => told === 1);
  });

  it('merges, on every resync_interval of its clock, a revocation it was never told about', async () => {
    const environment = uniqueEnvironment();
    const clock = new ManualClock();
    const store = await connectedStore(redisStoreConfig({ mode: 'single', url: single.url }, { resync_interval: 60_000 }), environment, clock);
    open.push(store);
    // Written behind the store's back: in the sorted set, without the pub/sub notice (as a message lost in an outage).
    expect(await rawCommand(single.port, `ZADD ${keyspace(environment).revocations} ${clock.now() + 600_000} token:unannounced`)).toBe(':1\r\n');
    clock.advance(59_999);
    expect(store.revocations.isRevoked('token', 'unannounced')).toBe(false);
    clock.advance(1);
    await eventually(() => store.revocations.isRevoked('token', 'unannounced'), { what: 'the periodic resync to load the revocation' });
  });

  it('shares rate-limit counters between instances', async () => {
    const environment = uniqueEnvironment();
    const [a, b] = [await storeOn(environment), await storeOn(environment)];
    const settings = { name: 'shared', points: 2, durationSeconds: 60 };
    await a.createRateLimiter(settings).consume('client');
    await b.createRateLimiter(settings).consume('client');
    await expect(a.createRateLimiter(settings).consume('client')).rejects.toMatchObject({ remainingPoints: 0 });
  });
});

describe('redis store: connection settings', () => {
  it('takes the password from password_env over one written in the URL', async () => {
    const redis = await RedisServer.start({ args: ['--requirepass', 'right-password'] });
    const url = `redis://:wrong-password@127.0.0.1:${redis.port}/2`;
    process.env.TG_TEST_REDIS_PASSWORD = 'right-password';
    const store = await connectedStore(
      redisStoreConfig({ mode: 'single', url }, { password_env: 'TG_TEST_REDIS_PASSWORD' }),
      uniqueEnvironment(),
      new ManualClock(),
    ).finally(() => delete process.env.TG_TEST_REDIS_PASSWORD);
    try {
      // Connected (a wrong password would never get ready) and writing.
      await expect(store.revocations.add({ kind: 'token', id: 'j', expiresAt: Date.now() + 60_000 })).resolves.toBeUndefined();
      expect(await rawCommand(redis.port, 'PING')).toMatch(/^-NOAUTH/);
    } finally {
      await store.close();
      await redis.dispose();
    }
  });
});

describe('redis store: faults', () => {
  const clock = new ManualClock();

  it('answers 503 at once while redis is down, keeps what it accepted, and writes it when redis returns', async () => {
    const redis = await RedisServer.start();
    const environment = uniqueEnvironment();
    const config = redisStoreConfig({ mode: 'single', url: redis.url });
    const a = await connectedStore(config, environment, clock);
    try {
      await a.revocations.add({ kind: 'token', id: 'before-outage', expiresAt: clock.now() + 60_000 });
      await redis.stop();
      await eventually(() => !a.health().ready);
      await expect(a.revocations.add({ kind: 'token', id: 'during-outage', expiresAt: clock.now() + 60_000 })).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
      });
      await expect(a.refreshTokens.find({ grantId: 'g', hash: 'h' })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      // The mirror goes on answering, with both revocations.
      expect(a.revocations.isRevoked('token', 'before-outage')).toBe(true);
      expect(a.revocations.isRevoked('token', 'during-outage')).toBe(true);
      // Counting goes on locally (the insurance limiter) rather than failing requests.
      await expect(a.createRateLimiter({ name: 'outage', points: 1, durationSeconds: 60 }).consume('c')).resolves.toBeDefined();

      await redis.launch(); // back, and empty: no persistence
      await eventually(() => a.health().ready, { timeoutMs: 10_000 });
      const b = await connectedStore(config, environment, clock);
      try {
        expect(b.revocations.isRevoked('token', 'before-outage')).toBe(true);
        expect(b.revocations.isRevoked('token', 'during-outage')).toBe(true);
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
      await redis.dispose();
    }
  });

  it('gives up on a command when redis stops answering, and refuses work beyond max_pending', async () => {
    const redis = await RedisServer.start({ args: ['--enable-debug-command', 'yes'] });
    const config = redisStoreConfig({ mode: 'single', url: redis.url }, { command_timeout: 200, max_pending: 2 });
    const store = await connectedStore(config, uniqueEnvironment(), clock);
    try {
      const sleeping = rawCommand(redis.port, 'DEBUG SLEEP 1.5', 5_000);
      // Redis is asleep once a PING goes unanswered.
      const unanswered = (ping: Promise<string>) => ping.then(() => false, () => true);
      await eventually(() => unanswered(rawCommand(redis.port, 'PING', 50)), { what: 'redis to stop answering (DEBUG SLEEP)' });
      const ref = { grantId: 'g', hash: 'h' };
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => store.refreshTokens.find(ref)));
      const details = results.map((result) => (result.status === 'rejected' ? (result.reason as { code: string; detail: string }) : undefined));
      expect(details.every((detail) => detail?.code === 'SERVICE_UNAVAILABLE')).toBe(true);
      expect(details.filter((detail) => detail?.detail.includes('pending'))).toHaveLength(3);
      expect(details.filter((detail) => detail?.detail.includes('timed out'))).toHaveLength(2);
      await sleeping;
      // The stalled connection was dropped (socket timeout) and comes back by itself.
      await untilReady(store);
      await expect(store.refreshTokens.find(ref)).resolves.toBeUndefined();
    } finally {
      await store.close();
      await redis.dispose();
    }
  });
});
