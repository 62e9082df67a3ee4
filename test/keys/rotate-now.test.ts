import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRingKeeper } from '../../src/keys/keeper.js';
import { KeyRing } from '../../src/keys/key-ring.js';
import { scheduleRotation, type Maintainable, type RotationTrigger } from '../../src/keys/rotation.js';
import { KeySealer } from '../../src/keys/sealing.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { KeyRingStorage } from '../../src/store/types.js';
import type { RedisStore } from '../../src/store/redis/store.js';
import { ManualClock } from '../helpers/clock.js';
import { RedisServer } from '../helpers/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { connectedStore, redisStoreConfig, silentLogger, uniqueEnvironment } from '../helpers/redis-store.js';

const HOUR = 3_600_000;
const INTERVAL = 24 * HOUR;
const RETENTION = HOUR;

/** A ring and its keeper, as one gateway holds them; the memory store unless `storage` is shared. */
async function keptRing(clock: ManualClock, storage: KeyRingStorage = new MemoryStore(clock).keyRing, sealer = KeySealer.ephemeral()) {
  const ring = new KeyRing({ algorithm: 'ES256', rotationIntervalMs: INTERVAL, retentionMs: RETENTION, clock });
  const keeper = new KeyRingKeeper({ ring, storage, sealer, logger: silentLogger, clock, lockWaitMs: 300 });
  await keeper.sync();
  return { ring, keeper };
}

const kids = (ring: KeyRing) => ring.list().map((key) => key.kid);

describe('rotating the signing key now', () => {
  it('signs with a new key from now, keeps the key that signed until its tokens expired, and publishes the next one an interval ahead', async () => {
    const clock = new ManualClock();
    const { ring, keeper } = await keptRing(clock);
    const [first, scheduledNext] = kids(ring);
    clock.advance(HOUR);

    const rotation = await keeper.rotateNow({ dropPrevious: false });

    expect(ring.selectSigningKey().kid).toBe(rotation.kid);
    expect(rotation.signsFrom).toBe(clock.now());
    expect(rotation.published).toEqual([first, rotation.kid, rotation.nextKid]);
    // The old upcoming key never signed anything; kept, it would take over from the new key at its own time.
    expect(rotation.dropped).toEqual([scheduledNext]);
    expect(ring.list().find((key) => key.kid === rotation.nextKid)?.signsFrom).toBe(clock.now() + INTERVAL);

    clock.advance(RETENTION - 1);
    await keeper.maintain();
    expect(kids(ring)).toContain(first);
    clock.advance(1);
    expect(await keeper.maintain()).toBe(true);
    expect(kids(ring)).toEqual([rotation.kid, rotation.nextKid]);
  });

  it('hands over to the schedule: the next key signs a whole interval later, and the one after is published an interval ahead', async () => {
    const clock = new ManualClock();
    const { ring, keeper } = await keptRing(clock);
    clock.advance(HOUR);
    const rotation = await keeper.rotateNow({ dropPrevious: false });
    clock.advance(RETENTION);
    await keeper.maintain();

    clock.advance(INTERVAL - RETENTION - 1);
    expect(ring.selectSigningKey().kid).toBe(rotation.kid);
    expect(await keeper.maintain()).toBe(false);
    clock.advance(1);
    expect(ring.selectSigningKey().kid).toBe(rotation.nextKid);
    expect(await keeper.maintain()).toBe(true);
    const upcoming = ring.list().at(-1)!;
    expect(upcoming.signsFrom).toBe(clock.now() + INTERVAL);
  });

  it('drops every earlier key at once when asked: tokens they signed no longer find a key', async () => {
    const clock = new ManualClock();
    const { ring, keeper } = await keptRing(clock);
    const old = ring.selectSigningKey();
    clock.advance(HOUR);

    const rotation = await keeper.rotateNow({ dropPrevious: true });

    expect(kids(ring)).toEqual([rotation.kid, rotation.nextKid]);
    expect(rotation.dropped).toContain(old.kid);
    expect(ring.selectVerificationKey({ kid: old.kid, alg: old.alg })).toBeUndefined();
    expect(ring.jwksJson()).not.toContain(old.kid);
  });

  it('starts strictly after the current key even when the clock has not moved since it started', async () => {
    const clock = new ManualClock();
    const { ring, keeper } = await keptRing(clock);
    const old = ring.selectSigningKey();

    const rotation = await keeper.rotateNow({ dropPrevious: false });

    expect(rotation.signsFrom).toBe(old.signsFrom + 1);
    clock.advance(1);
    expect(ring.selectSigningKey().kid).toBe(rotation.kid);
    expect(kids(ring)).toContain(old.kid);
  });

  it('is unavailable, not broken, before the keys are loaded', async () => {
    const clock = new ManualClock();
    const ring = new KeyRing({ algorithm: 'ES256', rotationIntervalMs: INTERVAL, retentionMs: RETENTION, clock });
    const keeper = new KeyRingKeeper({ ring, storage: new MemoryStore(clock).keyRing, sealer: KeySealer.ephemeral(), logger: silentLogger, clock });
    await expect(keeper.rotateNow({ dropPrevious: false })).rejects.toSatisfy((error) => isGatewayError(error) && error.code === 'SERVICE_UNAVAILABLE');
  });
});

describe('the rotation schedule and a rotation now', () => {
  /** A ring whose due time the test sets, counting what the schedule asks of it. */
  function scriptedRing(clock: ManualClock) {
    const calls = { maintain: 0 };
    let dueAt = clock.now() + HOUR;
    const ring: Maintainable = {
      maintain: async () => {
        calls.maintain++;
        dueAt = clock.now() + HOUR;
        return false;
      },
      nextDueAt: () => dueAt,
      rotateNow: async () => {
        dueAt = clock.now(); // e.g. a retired key is due to go at once
        return { kid: 'new', signsFrom: clock.now(), nextKid: 'next', published: ['new', 'next'], dropped: [] };
      },
    };
    return { ring, calls };
  }

  it('announces a rotation now as a rotation, and re-plans from the ring it left', async () => {
    const clock = new ManualClock();
    const { ring, calls } = scriptedRing(clock);
    const announced: RotationTrigger[] = [];
    const schedule = scheduleRotation(ring, clock, () => undefined, (trigger) => announced.push(trigger));
    try {
      expect(await schedule.rotateNow({ dropPrevious: false })).toMatchObject({ kid: 'new' });
      expect(announced).toEqual(['admin']);
      // Due now: without re-planning, the schedule would sleep for the hour it planned before.
      expect(calls.maintain).toBe(0);
      clock.advance(0);
      expect(calls.maintain).toBe(1);
    } finally {
      schedule.stop();
    }
  });
});

describe('rotating now on a shared store', () => {
  let redis: RedisServer;
  const stores: RedisStore[] = [];
  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await redis.dispose();
  });

  const KEK = randomBytes(32);
  async function instance(environment: string, clock: ManualClock) {
    const store = await connectedStore(redisStoreConfig({ mode: 'single', url: redis.url }), environment, clock);
    stores.push(store);
    return { store, ...(await keptRing(clock, store.keyRing, new KeySealer(KEK, environment))) };
  }

  for (const dropPrevious of [false, true]) {
    it(`reaches the other instances through the change notice, which do not write the removed keys back (dropPrevious: ${dropPrevious})`, async () => {
      const clock = new ManualClock();
      const environment = uniqueEnvironment();
      const a = await instance(environment, clock);
      const b = await instance(environment, clock);
      clock.advance(HOUR);
      const rotation = await a.keeper.rotateNow({ dropPrevious });
      await eventually(() => kids(b.ring).join() === rotation.published.join());
      expect(b.ring.selectSigningKey().kid).toBe(rotation.kid);
      // B held the removed keys and still "needs" them by its own plan; the stored ring says they went on purpose.
      await Promise.all([a.keeper.sync(), b.keeper.sync()]);
      expect(kids(a.ring)).toEqual(rotation.published);
      expect(kids(b.ring)).toEqual(rotation.published);
    });
  }

  it('waits for the lock another instance holds, and gives up with 503 if it is held for long', async () => {
    const clock = new ManualClock();
    const environment = uniqueEnvironment();
    const a = await instance(environment, clock);
    const b = await instance(environment, clock);
    // The keeper asks for the lock every LOCK_STEP_MS of its clock, lockWaitMs (300) in all: three attempts.
    const LOCK_STEP_MS = 100;
    const nextStep = async () => {
      await eventually(() => clock.hasTimerWithin(LOCK_STEP_MS), { what: 'the keeper to wait for its next attempt at the lock' });
      clock.advance(LOCK_STEP_MS);
    };
    const release = (await b.store.keyRing.tryLock(10_000))!;
    const givingUp = a.keeper.rotateNow({ dropPrevious: false });
    await nextStep();
    await nextStep();
    await expect(givingUp).rejects.toSatisfy((error) => isGatewayError(error) && error.code === 'SERVICE_UNAVAILABLE');

    const relock = (await b.store.keyRing.tryLock(10_000)) ?? release;
    const rotating = a.keeper.rotateNow({ dropPrevious: false });
    await eventually(() => clock.hasTimerWithin(LOCK_STEP_MS), { what: 'the keeper to find the lock taken and wait' });
    await relock();
    clock.advance(LOCK_STEP_MS);
    await expect(rotating).resolves.toMatchObject({ kid: expect.any(String) });
  });
});
