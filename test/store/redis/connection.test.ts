import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { StartupError } from '../../../src/config/errors.js';
import { connectionStateText, createRedisClient, endpointOf, jitteredBackoff, redisPassword } from '../../../src/store/redis/connection.js';
import { redisStoreConfig } from '../../helpers/redis-store.js';

describe('Redis connections', () => {
  it.each([
    [0, 0, 50],
    [0, 1, 100],
    [3, 0, 400],
    [3, 1, 800],
    [6, 0.5, 750],
    [10, 1, 1_000],
    [50, 1, 1_000],
  ])('backs off from 100 ms to 1 s with jitter: attempt %i, random %d -> %i ms', (attempt, random, ms) => {
    expect(jitteredBackoff(attempt, () => random)).toBe(ms);
  });

  it.each([
    ['redis://127.0.0.1:6379/2', { host: '127.0.0.1', port: 6379, db: 2 }],
    ['redis://redis.internal', { host: 'redis.internal', port: 6379, db: 0 }],
    ['redis://user:p%40ss@[::1]:7000/0', { host: '::1', port: 7000, db: 0, username: 'user', password: 'p@ss' }],
    ['rediss://:secret@redis.internal:6380', { host: 'redis.internal', port: 6380, db: 0, password: 'secret', tls: {} }],
  ])('reads %s', (url, options) => {
    expect(endpointOf(url)).toEqual(options);
  });

  it('takes the password from password_env, and refuses a named variable that is unset or empty', () => {
    const config = redisStoreConfig({ mode: 'single', url: 'redis://a:6379' }, { password_env: 'REDIS_PW' });
    expect(redisPassword(config, { REDIS_PW: 'from-env' })).toBe('from-env');
    expect(redisPassword(redisStoreConfig({ mode: 'single', url: 'redis://a:6379' }), {})).toBeUndefined();
    for (const env of [{}, { REDIS_PW: '' }]) {
      expect(() => redisPassword(config, env)).toThrow(new StartupError('store.redis.password_env names REDIS_PW, which is not set in the environment'));
    }
  });

  it('never queues or retries a command behind the caller, and times every command out', () => {
    const client = createRedisClient(redisStoreConfig({ mode: 'single', url: 'redis://:in-url@127.0.0.1:6379/3' }, { command_timeout: 250 }), 'from-env') as Redis;
    expect(client).toBeInstanceOf(Redis);
    expect(client.options).toMatchObject({ commandTimeout: 250, socketTimeout: 500, enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true, db: 3, password: 'from-env' });
    client.disconnect();
  });

  it('builds a cluster client from the seed nodes, and a sentinel client naming its master', () => {
    const cluster = createRedisClient(redisStoreConfig({ mode: 'cluster', nodes: ['redis://a:7000', 'redis://b:7001'] }));
    expect(cluster).toBeInstanceOf(Cluster);
    expect((cluster as Cluster).options).toMatchObject({ enableOfflineQueue: false, lazyConnect: true });
    cluster.disconnect();
    const sentinel = createRedisClient(redisStoreConfig({ mode: 'sentinel', sentinels: ['redis://:sentinel-pw@s1:26379'], name: 'mymaster' })) as Redis;
    expect(sentinel.options).toMatchObject({ name: 'mymaster', sentinels: [{ host: 's1', port: 26379 }], sentinelPassword: 'sentinel-pw' });
    sentinel.disconnect();
  });
});

describe('connectionStateText: the connection status as words in a reason an operator reads', () => {
  it.each([
    ['wait', 'not connected yet'],
    ['connecting', 'connecting'],
    ['connect', 'connected but not ready yet'],
    ['ready', 'ready'],
    ['reconnecting', 'reconnecting'],
    ['close', 'closed'],
    ['end', 'closed'],
  ])('%s reads "%s"', (status, text) => {
    expect(connectionStateText(status)).toBe(text);
  });
});
