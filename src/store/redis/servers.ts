import type { Logger } from '../../log/logger.js';
import type { RedisClient } from './connection.js';
import { serverConnections } from './probe.js';

/** ZADD GT (a revocation is never shortened) arrived in Redis 6.2. */
const MIN_REDIS_VERSION = '6.2.0';

function compareVersions(a: string, b: string): number {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** Whether a Redis of `version` (as INFO says it) lacks what the store needs. */
export const isTooOld = (version: string): boolean => compareVersions(version, MIN_REDIS_VERSION) < 0;

/** Whether the eviction policy was looked at already (once per store), and where to warn. */
export interface EvictionCheck {
  done: boolean;
  readonly logger: Logger;
}

/**
 * The run ids of the Redis processes (every master of a cluster the client
 * is connected to): a new one is a restart or a failover, empty or lagging.
 * Also refuses a Redis too old for ZADD GT, and warns once about an eviction
 * policy that could silently drop revocations (no run id change would
 * reveal that loss).
 */
export async function inspectServers(client: RedisClient, eviction: EvictionCheck): Promise<{ runIds: ReadonlySet<string>; problem?: string }> {
  const nodes = serverConnections(client);
  const infos = await Promise.all(nodes.map((node) => node.info('server')));
  const runIds = new Set(infos.map((info) => /run_id:(\w+)/.exec(info)?.[1] ?? ''));
  const versions = infos.map((info) => /redis_version:([\d.]+)/.exec(info)?.[1] ?? '0');
  const tooOld = versions.find(isTooOld);
  if (tooOld) return { runIds, problem: `redis ${tooOld} is older than ${MIN_REDIS_VERSION}, which the store needs (ZADD GT)` };
  if (!eviction.done) {
    eviction.done = true;
    const policies = await Promise.all(nodes.map((node) => node.config('GET', 'maxmemory-policy').catch(() => [])));
    const evicting = policies.map((reply) => String((reply as string[])[1] ?? 'unknown')).find((policy) => policy !== 'noeviction' && policy !== 'unknown');
    if (evicting) eviction.logger.warn({ maxmemoryPolicy: evicting }, 'redis may evict keys: revocations could be lost without notice; use maxmemory-policy noeviction');
  }
  return { runIds };
}
