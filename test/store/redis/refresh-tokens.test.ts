import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyspace } from '../../../src/store/redis/keyspace.js';
import type { RedisStore } from '../../../src/store/redis/store.js';
import type { RefreshGrace, RefreshSuccessor, RefreshTokenRecord } from '../../../src/store/types.js';
import { ManualClock } from '../../helpers/clock.js';
import { rawCommand, RedisServer } from '../../helpers/redis-server.js';
import { connectedStore, redisStoreConfig, uniqueEnvironment } from '../../helpers/redis-store.js';

const integer = (reply: string) => Number(/^:(-?\d+)/.exec(reply)?.[1]);

/** Refresh tokens in Redis: one hash per grant, expiring with its last token; the gateway's clock decides validity. */
describe('refresh tokens in Redis', () => {
  let redis: RedisServer;
  let store: RedisStore;
  let environment: string;
  const clock = new ManualClock();
  beforeAll(async () => {
    redis = await RedisServer.start();
    environment = uniqueEnvironment();
    store = await connectedStore(redisStoreConfig({ mode: 'single', url: redis.url }), environment, clock);
  });
  afterAll(async () => {
    await store?.close();
    await redis?.dispose();
  });
  const record = (over: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord => ({ grantId: 'g', clientId: 'c', username: 'u', issuedAt: clock.now(), expiresAt: clock.now() + 60_000, ...over });
  const successor = (hash: string, over: Partial<RefreshTokenRecord> = {}): RefreshSuccessor => ({ hash, salt: 'salt', record: record(over) });
  const GRACE: RefreshGrace = { windowMs: 30_000, maxRetries: 5 };

  it('keeps a grant as one hash of token hash -> record, never the token value itself', async () => {
    await store.refreshTokens.save({ grantId: 'one-hash', hash: 'h1' }, record({ grantId: 'one-hash' }));
    await store.refreshTokens.save({ grantId: 'one-hash', hash: 'h2' }, record({ grantId: 'one-hash' }));
    expect(integer(await rawCommand(redis.port, `HLEN ${keyspace(environment).grant('one-hash')}`))).toBe(2);
  });

  it('expires the key a minute after its last token, never shortening it for an earlier one', async () => {
    const key = keyspace(environment).grant('ttl');
    await store.refreshTokens.save({ grantId: 'ttl', hash: 'long' }, record({ grantId: 'ttl', expiresAt: clock.now() + 3_600_000 }));
    await store.refreshTokens.save({ grantId: 'ttl', hash: 'short' }, record({ grantId: 'ttl', expiresAt: clock.now() + 1_000 }));
    const ttl = integer(await rawCommand(redis.port, `PTTL ${key}`));
    expect(ttl).toBeGreaterThan(3_600_000);
    expect(ttl).toBeLessThanOrEqual(3_660_000);
  });

  it('judges expiry by the gateway clock, not by Redis: a record past its time is missing though still stored', async () => {
    const ref = { grantId: 'clock', hash: 'h' };
    await store.refreshTokens.save(ref, record({ grantId: 'clock', expiresAt: clock.now() + 1_000 }));
    clock.advance(1_000);
    expect(await store.refreshTokens.find(ref)).toBeUndefined();
    expect(integer(await rawCommand(redis.port, `HEXISTS ${keyspace(environment).grant('clock')} h`))).toBe(1);
    expect(await store.refreshTokens.rotate(ref, successor('next', { grantId: 'clock' }), clock.now(), GRACE)).toEqual({ kind: 'missing' });
  });

  it('prunes expired tokens of a grant when it rotates one, so a long-lived grant stays small', async () => {
    const key = keyspace(environment).grant('prune');
    await store.refreshTokens.save({ grantId: 'prune', hash: 'old' }, record({ grantId: 'prune', expiresAt: clock.now() + 10 }));
    await store.refreshTokens.save({ grantId: 'prune', hash: 'current' }, record({ grantId: 'prune' }));
    clock.advance(10);
    expect(await store.refreshTokens.rotate({ grantId: 'prune', hash: 'current' }, successor('next', { grantId: 'prune' }), clock.now(), GRACE)).toEqual({ kind: 'rotated' });
    expect(await rawCommand(redis.port, `HEXISTS ${key} old`)).toBe(':0\r\n');
    expect(integer(await rawCommand(redis.port, `HLEN ${key}`))).toBe(2); // the used one (kept to recognise a replay) and its successor
  });

  it('keeps the successor as a hash and the salt it was derived with, never the successor itself, and counts retries in the record', async () => {
    const key = keyspace(environment).grant('retried');
    await store.refreshTokens.save({ grantId: 'retried', hash: 'old' }, record({ grantId: 'retried' }));
    await store.refreshTokens.rotate({ grantId: 'retried', hash: 'old' }, successor('new', { grantId: 'retried' }), clock.now(), GRACE);
    await store.refreshTokens.rotate({ grantId: 'retried', hash: 'old' }, successor('other', { grantId: 'retried' }), clock.now(), GRACE);
    const reply = await rawCommand(redis.port, `HGET ${key} old`);
    expect(JSON.parse(reply.split('\r\n')[1]!)).toMatchObject({ usedAt: clock.now(), successorHash: 'new', successorSalt: 'salt', retries: 1 });
    expect(integer(await rawCommand(redis.port, `HLEN ${key}`))).toBe(2);
  });

  it('removes a grant in one step', async () => {
    await store.refreshTokens.save({ grantId: 'gone', hash: 'h' }, record({ grantId: 'gone' }));
    await store.refreshTokens.removeGrant('gone');
    expect(integer(await rawCommand(redis.port, `EXISTS ${keyspace(environment).grant('gone')}`))).toBe(0);
  });
});
