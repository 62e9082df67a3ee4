import { z } from './zod.js';
import { DEFAULTS } from './defaults.js';
import { duration } from './fields.js';

/**
 * `store:` in gateway.yaml. Three spellings, one normalised result:
 *
 *   store: memory                                   # the embedded default
 *   store: redis://:secret@redis.internal:6379/0    # one Redis server (rediss:// for TLS)
 *   store: { redis: { cluster: [redis://a:7000, redis://b:7001] } }
 *   store: { redis: { sentinels: [redis://s1:26379], name: mymaster } }
 */

const REDIS_URL_HINT = 'expected a redis:// or rediss:// URL like redis://host:6379/0';

const redisUrl = z
  .string()
  .refine((text) => {
    try {
      const url = new URL(text);
      return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '' && /^(\/\d*)?$/.test(url.pathname);
    } catch {
      return false;
    }
  }, REDIS_URL_HINT)
  .meta({ 'x-format': 'redis-url' });

const redisOptions = z
  .strictObject({
    url: redisUrl.optional().describe('One Redis server; the path is the database number.'),
    cluster: z.array(redisUrl).min(1).optional().describe('Seed nodes of a Redis Cluster.'),
    sentinels: z.array(redisUrl).min(1).optional().describe('Redis Sentinel addresses; `name` names the monitored master.'),
    name: z.string().min(1).optional().describe('The Sentinel master name.'),
    password_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected the name of an environment variable')
      .optional()
      .describe(
        "Environment variable holding the Redis password; wins over a password in the URL (with sentinels: the master's; a sentinel URL's is the sentinels').",
      ),
    // Upper bounds: a request waits for at most one command timeout, so a long one would be a hang by another name.
    command_timeout: duration(DEFAULTS.redis.command_timeout, { min: 10, max: 30_000 }).describe('Every store call gives up after this (one deadline, whatever the Redis client retries); writes then answer 503 at once until Redis answers again.'),
    connect_timeout: duration(DEFAULTS.redis.connect_timeout, { min: 10, max: 60_000 }).describe('Time one connection attempt may take.'),
    resync_interval: duration(DEFAULTS.redis.resync_interval, { min: 100, max: 3_600_000 }).describe(
      'Interval of the full reload of revocations and key ring (pub/sub does the rest).',
    ),
    max_pending: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .default(DEFAULTS.redis.max_pending)
      .describe('Commands in flight before new ones get 503 at once.'),
  })
  .superRefine((options, ctx) => {
    const given = (['url', 'cluster', 'sentinels'] as const).filter((key) => options[key] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of url, cluster or sentinels' });
    }
    if (options.sentinels && !options.name) ctx.addIssue({ code: 'custom', path: ['name'], message: 'is required with sentinels' });
    if (!options.sentinels && options.name) ctx.addIssue({ code: 'custom', path: ['name'], message: 'is only used with sentinels' });
  })
  .describe('One Redis server, a Redis Cluster or Redis Sentinel: exactly one of url, cluster and sentinels.');

export type RedisTopology =
  | { readonly mode: 'single'; readonly url: string }
  | { readonly mode: 'cluster'; readonly nodes: readonly string[] }
  | { readonly mode: 'sentinel'; readonly sentinels: readonly string[]; readonly name: string };

export interface RedisStoreConfig {
  readonly kind: 'redis';
  readonly topology: RedisTopology;
  readonly password_env?: string;
  readonly command_timeout: number;
  readonly connect_timeout: number;
  readonly resync_interval: number;
  readonly max_pending: number;
}

export type StoreConfig = { readonly kind: 'memory' } | RedisStoreConfig;

function topologyOf(options: z.output<typeof redisOptions>): RedisTopology {
  if (options.cluster) return { mode: 'cluster', nodes: options.cluster };
  if (options.sentinels) return { mode: 'sentinel', sentinels: options.sentinels, name: options.name ?? '' };
  return { mode: 'single', url: options.url ?? '' };
}

const STORE_HINT = 'expected "memory", a redis:// or rediss:// URL, or { redis: { url | cluster | sentinels } }';

export const storeSchema = z
  .preprocess(
    // Both shorthands become the object form, so errors inside it name the real key.
    (value) => {
      if (value === 'memory') return {};
      if (typeof value === 'string' && /^rediss?:/i.test(value)) return { redis: { url: value } };
      return value;
    },
    z.strictObject({ redis: redisOptions.optional() }, { error: (issue) => (issue.code === 'invalid_type' ? STORE_HINT : undefined) }),
  )
  .prefault(DEFAULTS.store)
  .meta({ 'x-accepts': '`memory`, a `redis://` or `rediss://` URL, or an object' })
  .describe('Where tokens, revocations, keys and counters live: `memory` (one process), one Redis URL, or the object form below.')
  .transform(({ redis }): StoreConfig => {
    if (!redis) return { kind: 'memory' };
    const { url: _url, cluster: _cluster, sentinels: _sentinels, name: _name, ...settings } = redis;
    return { kind: 'redis', topology: topologyOf(redis), ...settings };
  });

/** Where the store is, for logs: never the password. */
export function describeStore(store: StoreConfig): string {
  if (store.kind === 'memory') return 'memory';
  const { topology } = store;
  const hosts = (urls: readonly string[]) => urls.map((text) => new URL(text).host).join(',');
  if (topology.mode === 'single') return `redis ${hosts([topology.url])}${new URL(topology.url).pathname || '/0'}`;
  if (topology.mode === 'cluster') return `redis cluster ${hosts(topology.nodes)}`;
  return `redis sentinel ${topology.name}@${hosts(topology.sentinels)}`;
}
