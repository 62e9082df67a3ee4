import { randomBytes } from 'node:crypto';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDeadline } from '../../../src/store/redis/availability.js';
import { createRedisClient, type RedisClient } from '../../../src/store/redis/connection.js';
import { gatedRateLimiter, windowCounterOf, type Gate } from '../../../src/store/redis/counters.js';
import { eventually } from '../../helpers/eventually.js';
import { rawCommand, RedisServer } from '../../helpers/redis-server.js';
import { redisStoreConfig } from '../../helpers/redis-store.js';

/**
 * Rate-limit counters on Redis behind the store's gate
 * (src/store/redis/counters.ts; docs/several-instances.md, "Faults"): every
 * Redis command a counter sends goes through the gate, and a call the gate
 * refuses, or lets run past its deadline, is counted at once in memory (the
 * insurance limiter) instead of failing or waiting. On a real redis-server;
 * the gates are the two answers the store's gate gives: let through with a
 * deadline, or refuse (Redis known out of reach).
 */

const POINTS = 3;
let redis: RedisServer;
let client: RedisClient;
beforeAll(async () => {
  redis = await RedisServer.start();
  client = createRedisClient(redisStoreConfig({ mode: 'single', url: redis.url }));
  await client.connect();
});
afterAll(async () => {
  client?.disconnect();
  await redis?.dispose();
});

const prefix = () => `tg:test-${randomBytes(4).toString('hex')}:rate:per-caller`;
const counter = (keyPrefix: string, gate: Gate): RateLimiterAbstract => gatedRateLimiter({ client, keyPrefix, points: POINTS, durationSeconds: 60 }, gate);
const through: Gate = (operation) => operation();
/** The store while Redis is known out of reach: refused before anything is sent. */
const refused: Gate = () => Promise.reject(new Error('redis out of reach (Connection is closed.)'));
const stored = (key: string) => rawCommand(redis.port, `GET ${key}`);
const exists = (key: string) => rawCommand(redis.port, `EXISTS ${key}`);

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = Date.now();
  const result = await work();
  return { result, ms: Date.now() - started };
}

describe('counters on redis', () => {
  it('count in redis, so that instances on one redis share one allowance', async () => {
    const keyPrefix = prefix();
    const [a, b] = [counter(keyPrefix, through), counter(keyPrefix, through)];
    await a.consume('caller');
    await b.consume('caller');
    expect((await a.consume('caller')).remainingPoints).toBe(0);
    expect(await b.consume('caller').catch((refusal: unknown) => refusal)).toBeInstanceOf(RateLimiterRes);
    expect(await stored(`${keyPrefix}:caller`)).toBe('$1\r\n4\r\n');
  });

  it.each([
    ['consume', (limiter: RateLimiterAbstract) => limiter.consume('k')],
    ['penalty', (limiter: RateLimiterAbstract) => limiter.penalty('k')],
    ['reward', (limiter: RateLimiterAbstract) => limiter.reward('k')],
    ['get', (limiter: RateLimiterAbstract) => limiter.get('k')],
    ['delete', (limiter: RateLimiterAbstract) => limiter.delete('k')],
    ['block', (limiter: RateLimiterAbstract) => limiter.block('k', 60)],
    ['set', (limiter: RateLimiterAbstract) => limiter.set('k', 1, 60)],
  ])('send every redis command of %s through the gate', async (_name, call) => {
    let passed = 0;
    const limiter = counter(prefix(), (operation) => {
      passed++;
      return operation();
    });
    await call(limiter);
    expect(passed).toBe(1);
  });
});

describe('counters while the store refuses redis calls', () => {
  it('count in memory at once, each instance on its own, and write nothing to redis', async () => {
    const keyPrefix = prefix();
    const [a, b] = [counter(keyPrefix, refused), counter(keyPrefix, refused)];
    const { result, ms } = await timed(() => a.consume('caller'));
    expect(result.consumedPoints).toBe(1);
    expect(ms).toBeLessThan(100);
    expect((await b.consume('caller')).consumedPoints).toBe(1);
    expect(await exists(`${keyPrefix}:caller`)).toBe(':0\r\n');
  });

  it('still refuse past the allowance, from memory', async () => {
    const limiter = counter(prefix(), refused);
    for (let i = 0; i < POINTS; i++) await limiter.consume('caller');
    const refusal = await limiter.consume('caller').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RateLimiterRes);
    expect((refusal as RateLimiterRes).msBeforeNext).toBeGreaterThan(0);
  });

  it.each([
    ['penalty counts a failure', (limiter: RateLimiterAbstract) => limiter.penalty('k'), { consumedPoints: 2 }],
    ['reward gives a place back', (limiter: RateLimiterAbstract) => limiter.reward('k'), { consumedPoints: 0 }],
    ['get reads the count', (limiter: RateLimiterAbstract) => limiter.get('k'), { consumedPoints: 1 }],
    ['block locks the key for the cool-down', (limiter: RateLimiterAbstract) => limiter.block('k', 60).then(() => limiter.get('k')), { consumedPoints: POINTS + 1 }],
    ['delete forgets the key', (limiter: RateLimiterAbstract) => limiter.delete('k').then(() => limiter.get('k')), null],
  ])('answer from memory what the login throttle asks: %s', async (_name, call, expected) => {
    const limiter = counter(prefix(), refused);
    await limiter.consume('k');
    const answer = await call(limiter);
    if (expected === null) expect(answer).toBeNull();
    else expect(answer).toMatchObject(expected);
  });
});

describe('counters on a redis that stops answering', () => {
  it('count in memory once the gate\'s deadline passes, without waiting for redis', async () => {
    const DEADLINE_MS = 100;
    const limiter = counter(prefix(), (operation) => withDeadline(operation(), DEADLINE_MS));
    const PAUSE_MS = 600;
    expect(await rawCommand(redis.port, `CLIENT PAUSE ${PAUSE_MS} ALL`)).toBe('+OK\r\n');
    const { result, ms } = await timed(() => limiter.consume('caller'));
    expect(result.consumedPoints).toBe(1);
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 5);
    // Redis itself would have answered only once the pause was over.
    expect(ms).toBeLessThan(PAUSE_MS - 200);
    await eventually(async () => (await rawCommand(redis.port, 'PING', 200)) === '+PONG\r\n', { what: 'redis to answer again' });
  });
});

describe('window counters on redis (spike arrest)', () => {
  it('keep one key per caller and window, `<prefix>:<caller>:<window>` as before the window counter, shared by instances', async () => {
    const keyPrefix = prefix();
    const [a, b] = [windowCounterOf(counter(keyPrefix, through)), windowCounterOf(counter(keyPrefix, through))];
    expect([await a.admit('client_id:portal', '29544721.3'), await b.admit('client_id:portal', '29544721.3')]).toEqual([true, true]);
    expect(await a.admit('client_id:portal', '29544721.3')).toBe(true);
    expect(await b.admit('client_id:portal', '29544721.3')).toBe(false);
    expect(await stored(`${keyPrefix}:client_id:portal:29544721.3`)).toBe('$1\r\n4\r\n');
    // Unlike memory, an earlier window is its own key and still counts until it expires.
    expect(await a.admit('client_id:portal', '29544721.2')).toBe(true);
  });

  it('pass a failure to count on (not a refusal) to the caller', async () => {
    const failing = { consume: () => Promise.reject(new Error('counting failed')) } as unknown as RateLimiterAbstract;
    await expect(windowCounterOf(failing).admit('k', '1.0')).rejects.toThrow('counting failed');
  });
});
