import { describe, expect, it } from 'vitest';
import { describeStore, storeSchema } from '../../src/config/store-schema.js';
import { issuesOf } from '../helpers/config-file.js';

describe('store: in gateway.yaml', () => {
  it.each([
    ['absent', undefined, { kind: 'memory' }],
    ['memory', 'memory', { kind: 'memory' }],
    ['a redis URL', 'redis://:pw@redis.internal:6379/2', { kind: 'redis', topology: { mode: 'single', url: 'redis://:pw@redis.internal:6379/2' } }],
    ['a rediss URL', 'rediss://redis.internal:6380', { kind: 'redis', topology: { mode: 'single', url: 'rediss://redis.internal:6380' } }],
    ['a cluster', { redis: { cluster: ['redis://a:7000', 'redis://b:7001'] } }, { kind: 'redis', topology: { mode: 'cluster', nodes: ['redis://a:7000', 'redis://b:7001'] } }],
    ['sentinels', { redis: { sentinels: ['redis://s1:26379'], name: 'mymaster' } }, { kind: 'redis', topology: { mode: 'sentinel', sentinels: ['redis://s1:26379'], name: 'mymaster' } }],
  ])('reads %s as one normalised store', (_case, value, expected) => {
    expect(storeSchema.parse(value)).toMatchObject(expected);
  });

  it('fills the Redis defaults: 1s commands, 2s connect, 30s resync, 1000 pending', () => {
    expect(storeSchema.parse('redis://a:6379')).toEqual({
      kind: 'redis',
      topology: { mode: 'single', url: 'redis://a:6379' },
      command_timeout: 1_000,
      connect_timeout: 2_000,
      resync_interval: 30_000,
      max_pending: 1_000,
    });
  });

  it.each([
    [{ kind: 'memory' }, 'memory'],
    [storeSchema.parse('redis://:secret@redis.internal:6379/2'), 'redis redis.internal:6379/2'],
    [storeSchema.parse('redis://redis.internal:6379'), 'redis redis.internal:6379/0'],
    [storeSchema.parse({ redis: { cluster: ['redis://u:secret@a:7000', 'redis://b:7001'] } }), 'redis cluster a:7000,b:7001'],
    [storeSchema.parse({ redis: { sentinels: ['redis://s1:26379'], name: 'mymaster' } }), 'redis sentinel mymaster@s1:26379'],
  ] as const)('describes %j for logs as %s, never with the password', (store, text) => {
    expect(describeStore(store)).toBe(text);
  });

  it.each([
    ['an unknown store', 'store: memroy\n', 'gateway.yaml:1: store: expected "memory", a redis:// or rediss:// URL'],
    ['a redis store without an environment', 'store: redis://127.0.0.1:6379\n', 'gateway.yaml:1: environment: is required with a Redis store (redis 127.0.0.1:6379/0)'],
    ['an environment that is not a plain name', 'environment: Prod Env\n', 'gateway.yaml:1: environment: expected a short lower-case name'],
    ['a bad cluster node', 'environment: uat\nstore:\n  redis:\n    cluster: [redis://a:7000, http://b:7001]\n', 'gateway.yaml:4: store.redis.cluster[1]: expected a redis:// or rediss:// URL'],
    ['two topologies at once', 'environment: uat\nstore:\n  redis:\n    url: redis://a:6379\n    cluster: [redis://a:7000]\n', 'gateway.yaml:3: store.redis: give exactly one of url, cluster or sentinels'],
    ['sentinels without a master name', 'environment: uat\nstore:\n  redis:\n    sentinels: [redis://s:26379]\n', 'gateway.yaml:3: store.redis.name: is required with sentinels'],
    ['a bad redis timeout', 'environment: uat\nstore:\n  redis:\n    url: redis://a:6379\n    command_timeout: soon\n', 'gateway.yaml:5: store.redis.command_timeout: expected a duration'],
    ['an unknown redis key', 'environment: uat\nstore:\n  redis:\n    url: redis://a:6379\n    colour: red\n', 'gateway.yaml:5: store.redis.colour: unknown key'],
    ['a password variable that is not a name', 'environment: uat\nstore:\n  redis:\n    url: redis://a:6379\n    password_env: $PW\n', 'gateway.yaml:5: store.redis.password_env: expected the name of an environment variable'],
    ['a master name without sentinels', 'environment: uat\nstore:\n  redis:\n    url: redis://a:6379\n    name: mymaster\n', 'gateway.yaml:5: store.redis.name: is only used with sentinels'],
    ['a redis URL with a path that is not a database', 'environment: uat\nstore: redis://a:6379/zero\n', 'gateway.yaml:2: store.redis.url: expected a redis:// or rediss:// URL'],
  ])('names the file, line and key for %s', async (_case, text, expected) => {
    const issues = await issuesOf(text);
    expect(issues.join('\n')).toContain(expected);
  });
});
