import { describe, expect, it } from 'vitest';
import { keyspace } from '../../../src/store/redis/keyspace.js';
import { ManualClock } from '../../helpers/clock.js';
import { eventually } from '../../helpers/eventually.js';
import { rawCommand, RedisServer } from '../../helpers/redis-server.js';
import { connectedStore, redisStoresUnderTest, redisStoreConfig, uniqueEnvironment } from '../../helpers/redis-store.js';

/** The revocation list: a sorted set scored by expiry in Redis, a mirror in each instance that answers every Bearer check. */
describe('revocations in Redis', () => {
  const clock = new ManualClock();
  const redis = redisStoresUnderTest(clock);
  const storeOn = redis.storeOn;

  it('keeps each entry in one sorted set, scored by when it may be forgotten', async () => {
    const environment = uniqueEnvironment();
    const store = await storeOn(environment);
    const expiresAt = clock.now() + 60_000;
    await store.revocations.add({ kind: 'grant', id: 'g1', expiresAt });
    expect(await rawCommand(redis.server.port, `ZSCORE ${keyspace(environment).revocations} grant:g1`)).toBe(`$${String(expiresAt).length}\r\n${expiresAt}\r\n`);
  });

  it('answers from its mirror at once, and another instance learns it by pub/sub', async () => {
    const environment = uniqueEnvironment();
    const [a, b] = [await storeOn(environment), await storeOn(environment)];
    await a.revocations.add({ kind: 'token', id: 'jti-1', expiresAt: clock.now() + 60_000 });
    expect(a.revocations.isRevoked('token', 'jti-1')).toBe(true);
    await eventually(() => b.revocations.isRevoked('token', 'jti-1'), { what: 'the other instance to learn the revocation' });
  });

  it('never shortens an entry in Redis (ZADD GT)', async () => {
    const environment = uniqueEnvironment();
    const store = await storeOn(environment);
    const later = clock.now() + 120_000;
    await store.revocations.add({ kind: 'token', id: 'long', expiresAt: later });
    await store.revocations.add({ kind: 'token', id: 'long', expiresAt: clock.now() + 1_000 });
    expect(await rawCommand(redis.server.port, `ZSCORE ${keyspace(environment).revocations} token:long`)).toContain(String(later));
  });

  it('keeps a revocation it could not write, refusing the token meanwhile, and writes it when Redis is back', async () => {
    const own = await RedisServer.start();
    try {
      const environment = uniqueEnvironment();
      const store = redis.closedAfter(await connectedStore(redisStoreConfig({ mode: 'single', url: own.url }), environment, clock));
      await own.kill();
      await eventually(() => !store.health().ready, { what: 'the store to see redis gone' });
      await expect(store.revocations.add({ kind: 'token', id: 'offline', expiresAt: clock.now() + 60_000 })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(store.revocations.isRevoked('token', 'offline')).toBe(true);
      await own.launch();
      await eventually(async () => (await rawCommand(own.port, `ZSCORE ${keyspace(environment).revocations} token:offline`)).startsWith('$'), {
        timeoutMs: 10_000,
        what: 'the revocation written once redis is back',
      });
    } finally {
      await own.dispose();
    }
  });
});
