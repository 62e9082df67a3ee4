import { describe, expect, it } from 'vitest';
import { keyspace } from '../../../src/store/redis/keyspace.js';
import { ManualClock } from '../../helpers/clock.js';
import { eventually } from '../../helpers/eventually.js';
import { rawCommand } from '../../helpers/redis-server.js';
import { redisStoresUnderTest, uniqueEnvironment } from '../../helpers/redis-store.js';

/** The sealed key ring in Redis: one hash, a compare-and-set script, a lock, and a change notice. */
describe('key ring storage in Redis', () => {
  const redis = redisStoresUnderTest(new ManualClock());
  const storeOn = redis.storeOn;

  it('keeps the version and the document in one hash', async () => {
    const environment = uniqueEnvironment();
    const store = await storeOn(environment);
    expect(await store.keyRing.save({ version: 1, document: '{"keys":[]}' }, 0)).toBe(true);
    const reply = await rawCommand(redis.server.port, `HGET ${keyspace(environment).keyRing} version`);
    expect(reply).toBe('$1\r\n1\r\n');
    expect(await store.keyRing.load()).toEqual({ version: 1, document: '{"keys":[]}' });
  });

  it('tells every instance of the environment, itself included, that the ring changed', async () => {
    const environment = uniqueEnvironment();
    const [a, b] = [await storeOn(environment), await storeOn(environment)];
    const told = { a: 0, b: 0 };
    a.keyRing.onChange(() => told.a++);
    b.keyRing.onChange(() => told.b++);
    await a.keyRing.save({ version: 1, document: 'd' }, 0);
    await eventually(() => told.a === 1 && told.b === 1, { what: 'both instances told of the change' });
    expect(await b.keyRing.save({ version: 2, document: 'stale' }, 0)).toBe(false);
  });

  it('lets the lock go by itself after its TTL, so a crashed holder cannot block rotation for ever', async () => {
    const environment = uniqueEnvironment();
    const [a, b] = [await storeOn(environment), await storeOn(environment)];
    expect(await a.keyRing.tryLock(100)).toBeDefined();
    expect(await b.keyRing.tryLock(10_000)).toBeUndefined();
    // Redis's own clock expires the lock (PX): polled, not slept for.
    await eventually(async () => (await b.keyRing.tryLock(10_000)) !== undefined, { what: 'the expired lock to be free' });
  });

  it("never lets a late release remove a lock another instance holds since", async () => {
    const environment = uniqueEnvironment();
    const [a, b] = [await storeOn(environment), await storeOn(environment)];
    const lateRelease = (await a.keyRing.tryLock(100))!;
    let bRelease: (() => Promise<void>) | undefined;
    await eventually(async () => (bRelease = await b.keyRing.tryLock(10_000)) !== undefined, { what: "a's lock to expire and b to take it" });
    await lateRelease();
    expect(await a.keyRing.tryLock(10_000)).toBeUndefined();
    await bRelease!();
    expect(await a.keyRing.tryLock(10_000)).toBeDefined();
  });
});
