import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRingKeeper } from '../../src/keys/keeper.js';
import { KeyRing, SuccessorNotPublishedLongEnough } from '../../src/keys/key-ring.js';
import { publicationLeadMs } from '../../src/keys/publication.js';
import { scheduleRotation, type Maintainable, type RotationTrigger } from '../../src/keys/rotation.js';
import { KeySealer } from '../../src/keys/sealing.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { KeyRingStorage } from '../../src/store/types.js';
import type { RedisStore } from '../../src/store/redis/store.js';
import { ManualClock } from '../helpers/clock.js';
import { rawCommand, RedisServer } from '../helpers/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { connectedStore, redisStoreConfig, silentLogger, uniqueEnvironment } from '../helpers/redis-store.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const INTERVAL = 24 * HOUR;
const RETENTION = HOUR;
/** JWKS max-age (300 s) and the propagation margin (10 s): a key signs only once published this long. */
const LEAD = publicationLeadMs(INTERVAL);

/** A ring and its keeper, as one gateway holds them; the memory store unless `storage` is shared. */
async function keptRing(clock: ManualClock, storage: KeyRingStorage = new MemoryStore(clock).keyRing, sealer = KeySealer.ephemeral(), ackWaitMs = 3_000) {
  const ring = new KeyRing({ algorithm: 'ES256', rotationIntervalMs: INTERVAL, retentionMs: RETENTION, clock });
  const keeper = new KeyRingKeeper({ ring, storage, sealer, logger: silentLogger, clock, lockWaitMs: 300, ackWaitMs });
  await keeper.sync();
  return { ring, keeper };
}

const kids = (ring: KeyRing) => ring.list().map((key) => key.kid);
const keyOf = (ring: KeyRing, kid: string) => ring.list().find((key) => key.kid === kid)!;

describe('rotating the signing key now', () => {
  it('is the published next key taking over at once, once it has been published for longer than the JWKS cache lifetime', async () => {
    expect(LEAD).toBe(310_000);
    const clock = new ManualClock();
    const { ring, keeper } = await keptRing(clock);
    const [first, next] = kids(ring);
    clock.advance(HOUR);

    const rotation = await keeper.rotateNow({ dropPrevious: false });

    expect(rotation).toMatchObject({ kid: next, signsFrom: clock.now(), previousKid: first, dropped: [], changed: true, immediate: false });
    expect(ring.selectSigningKey().kid).toBe(next);
    // The key after it is published now, and signs an interval later: the schedule carries on from here.
    expect(rotation.published).toEqual([first, next, rotation.nextKid]);
    expect(keyOf(ring, rotation.nextKid)).toMatchObject({ publishedAt: clock.now(), signsFrom: clock.now() + INTERVAL });
    // The key that signed stays until every token it signed has expired.
    clock.advance(RETENTION);
    await keeper.maintain();
    expect(kids(ring)).toEqual([next, rotation.nextKid]);
  });

  it('keeps the current key signing until the next one may, when the next one was published too recently', async () => {
    const clock = new ManualClock();
    const { ring, keeper } = await keptRing(clock);
    const [first, next] = kids(ring);
    const publishedAt = clock.now();
    clock.advance(MINUTE);

    const rotation = await keeper.rotateNow({ dropPrevious: false });

    expect(rotation).toMatchObject({ kid: next, signsFrom: publishedAt + LEAD, previousKid: first, changed: true });
    clock.advance(publishedAt + LEAD - clock.now() - 1);
    expect(ring.selectSigningKey().kid).toBe(first);
    clock.advance(1);
    expect(ring.selectSigningKey().kid).toBe(next);
  });

  it('changes nothing when asked again before the key it promoted has taken over', async () => {
    const clock = new ManualClock();
    const { ring, keeper } = await keptRing(clock);
    clock.advance(MINUTE);
    const first = await keeper.rotateNow({ dropPrevious: false });
    const ring1 = ring.list();
    clock.advance(MINUTE);

    const again = await keeper.rotateNow({ dropPrevious: false });

    expect(again).toMatchObject({ kid: first.kid, signsFrom: first.signsFrom, nextKid: first.nextKid, changed: false });
    expect(ring.list()).toEqual(ring1);
  });

  it('never lets a key sign before it has been published for the whole lead, however rotations and the schedule interleave', async () => {
    const clock = new ManualClock();
    const { ring, keeper } = await keptRing(clock);
    const initial = ring.selectSigningKey().kid;
    const steps = [1, 7, 0, 3, 12, 30, 2, 600, 5, 0, 90, 1440, 4, 6, 8, 1, 3, 200, 11, 0];
    for (const minutes of steps) {
      clock.advance(minutes * MINUTE);
      if (minutes % 2 === 0) await keeper.rotateNow({ dropPrevious: false });
      else await keeper.maintain();
      for (const key of ring.list()) if (key.kid !== initial) expect(key.signsFrom - key.publishedAt).toBeGreaterThanOrEqual(LEAD);
      // Always a key waiting, published ahead.
      expect(ring.list().some((key) => key.signsFrom > clock.now())).toBe(true);
    }
  });

  it('drops every key that signed, with drop_previous, when the next key may sign at once: tokens they signed find no key', async () => {
    const clock = new ManualClock();
    const { ring, keeper } = await keptRing(clock);
    const old = ring.selectSigningKey();
    clock.advance(HOUR);

    const rotation = await keeper.rotateNow({ dropPrevious: true });

    expect(kids(ring)).toEqual([rotation.kid, rotation.nextKid]);
    expect(rotation.dropped).toEqual([old.kid]);
    expect(rotation.signsFrom).toBe(clock.now());
    expect(ring.selectVerificationKey({ kid: old.kid, alg: old.alg })).toBeUndefined();
    expect(ring.jwksJson()).not.toContain(old.kid);
  });

  it('refuses drop_previous while the next key was published too recently, saying from when, and changes nothing', async () => {
    const clock = new ManualClock();
    const { ring, keeper } = await keptRing(clock);
    const before = ring.list();
    const publishedAt = clock.now();
    clock.advance(MINUTE);

    const refusal = await keeper.rotateNow({ dropPrevious: true }).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(SuccessorNotPublishedLongEnough);
    expect(refusal).toMatchObject({ kid: before[1]!.kid, publishedAt, maySignFrom: publishedAt + LEAD });
    expect(ring.list()).toEqual(before);
  });

  for (const dropPrevious of [false, true]) {
    it(`signs with a brand-new key at once in an emergency; the waiting key goes, the key that signed ${dropPrevious ? 'goes too' : 'stays'}`, async () => {
      const clock = new ManualClock();
      const { ring, keeper } = await keptRing(clock);
      const [first, next] = kids(ring);
      clock.advance(MINUTE);

      const rotation = await keeper.rotateNow({ dropPrevious, immediate: true });

      expect([first, next]).not.toContain(rotation.kid);
      expect(rotation).toMatchObject({ signsFrom: clock.now(), previousKid: first, immediate: true });
      expect(ring.selectSigningKey().kid).toBe(rotation.kid);
      expect(rotation.dropped).toEqual(dropPrevious ? [first, next] : [next]);
      expect(kids(ring)).toEqual([...(dropPrevious ? [] : [first]), rotation.kid, rotation.nextKid]);
      expect(keyOf(ring, rotation.nextKid).signsFrom).toBe(clock.now() + INTERVAL);
    });
  }

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
    expect(upcoming).toMatchObject({ signsFrom: clock.now() + INTERVAL, publishedAt: clock.now() });
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
        const instances = { confirmed: ['this-process'], unconfirmed: [] };
        return { kid: 'new', signsFrom: clock.now(), previousKid: 'old', nextKid: 'next', nextSignsFrom: clock.now() + INTERVAL, published: ['new', 'next'], dropped: [], immediate: false, changed: true, instances };
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
  async function instance(environment: string, clock: ManualClock, ackWaitMs?: number) {
    const store = await connectedStore(redisStoreConfig({ mode: 'single', url: redis.url }), environment, clock);
    stores.push(store);
    return { store, ...(await keptRing(clock, store.keyRing, new KeySealer(KEK, environment), ackWaitMs)) };
  }

  for (const options of [{ dropPrevious: false }, { dropPrevious: true }, { dropPrevious: true, immediate: true }]) {
    it(`answers once every instance has installed the new ring, which none writes back the removed keys of (${JSON.stringify(options)})`, async () => {
      const clock = new ManualClock();
      const environment = uniqueEnvironment();
      const a = await instance(environment, clock);
      const b = await instance(environment, clock);
      const old = a.ring.selectSigningKey();
      clock.advance(HOUR);

      const rotation = await a.keeper.rotateNow(options);

      // Not eventually: the answer waited for B's acknowledgement.
      expect(kids(b.ring)).toEqual(rotation.published);
      expect(b.ring.selectSigningKey().kid).toBe(rotation.kid);
      expect(rotation.instances).toEqual({ confirmed: [a.store.keyRing.instanceId, b.store.keyRing.instanceId].sort(), unconfirmed: [] });
      if (options.dropPrevious) expect(b.ring.selectVerificationKey({ kid: old.kid, alg: old.alg })).toBeUndefined();
      // B held the removed keys and still "needs" them by its own plan; the stored ring says they went on purpose.
      await Promise.all([a.keeper.sync(), b.keeper.sync()]);
      expect(kids(a.ring)).toEqual(rotation.published);
      expect(kids(b.ring)).toEqual(rotation.published);
    });
  }

  it('names the instances that did not acknowledge: one live that did not answer in time, one not heard from lately', async () => {
    const clock = new ManualClock();
    const environment = uniqueEnvironment();
    const a = await instance(environment, clock, 300);
    const instances = `tg:${environment}:{keyring}:instances`;
    // Heartbeats are real time: a live instance beat just now, a gone one a minute ago.
    await rawCommand(redis.port, `HSET ${instances} stuck/1/aa "${Date.now()} 1 1"`);
    await rawCommand(redis.port, `HSET ${instances} gone/2/bb "${Date.now() - 60_000} 1 1"`);
    clock.advance(HOUR);

    const started = Date.now();
    const rotation = await a.keeper.rotateNow({ dropPrevious: false });

    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(rotation.instances.confirmed).toEqual([a.store.keyRing.instanceId]);
    expect(rotation.instances.unconfirmed).toEqual([
      expect.objectContaining({ instance: 'gone/2/bb', live: false }),
      expect.objectContaining({ instance: 'stuck/1/aa', live: true }),
    ]);
  });

  it('lets an instance that missed the change notice catch up within a heartbeat, and waits for it', async () => {
    const clock = new ManualClock();
    const environment = uniqueEnvironment();
    const a = await instance(environment, clock);
    const store = await connectedStore(redisStoreConfig({ mode: 'single', url: redis.url }), environment, clock);
    stores.push(store);
    // B's view of the store, minus the change notices: as if its subscription had dropped.
    const deaf: KeyRingStorage = Object.assign(Object.create(store.keyRing) as KeyRingStorage, { onChange: () => undefined });
    const b = await keptRing(clock, deaf, new KeySealer(KEK, environment));
    b.keeper.start();
    try {
      clock.advance(HOUR);
      const signingBefore = b.ring.selectSigningKey().kid;
      // B hears nothing; within a heartbeat (a second) it learns the stored version and syncs, and A waits for that.
      const rotation = await a.keeper.rotateNow({ dropPrevious: false });
      expect(rotation.kid).not.toBe(signingBefore);
      expect(rotation.instances.unconfirmed).toEqual([]);
      expect(b.ring.selectSigningKey().kid).toBe(rotation.kid);
    } finally {
      await b.keeper.stop();
    }
  });

  it('waits for the lock another instance holds, and gives up with 503 if it is held for long', async () => {
    const clock = new ManualClock();
    const environment = uniqueEnvironment();
    const a = await instance(environment, clock);
    const b = await instance(environment, clock);
    clock.advance(HOUR);
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
