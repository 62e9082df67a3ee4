import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { StartupError } from '../../config/errors.js';
import type { RedisStoreConfig } from '../../config/store-schema.js';

export type RedisClient = Redis | Cluster;

/**
 * Reconnect back-off: exponential from 100 ms to 1 s, with jitter so that
 * many instances do not reconnect in step. The ceiling bounds how late an
 * instance notices that Redis came back (empty, it may be: then it writes
 * its revocation list and keys back), and how long a starting instance
 * must wait for its peers to do so; an attempt a second per connection
 * costs a recovering Redis nothing.
 */
/**
 * How long to wait before reconnection attempt `attempt`: doubling from
 * 100 ms up to RECONNECT_CEILING_MS, with jitter so that instances do not
 * reconnect in step. The ceiling is one second: a node that returns must be
 * seen at once (the outage probe and the revocation write-back wait on it).
 */
export function reconnectDelay(attempt: number): number {
  return jitteredBackoff(attempt, Math.random);
}

export const RECONNECT_CEILING_MS = 1_000;

export function jitteredBackoff(attempt: number, random: () => number): number {
  const ceiling = Math.min(RECONNECT_CEILING_MS, 100 * 2 ** Math.min(attempt, 10));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** The password from `password_env` (which wins over one in the URL); refuses a named variable that is unset. */
export function redisPassword(config: RedisStoreConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (config.password_env === undefined) return undefined;
  const value = env[config.password_env];
  if (value === undefined || value === '') {
    throw new StartupError(`store.redis.password_env names ${config.password_env}, which is not set in the environment`);
  }
  return value;
}

/**
 * One ioredis client for the configured topology. Every command has a
 * timeout; nothing is queued while disconnected (a request gets a 503 at
 * once instead of waiting for a Redis that may never return); nothing is
 * retried behind the caller's back (a retried rotation could burn a token).
 */
export function createRedisClient(config: RedisStoreConfig, password = redisPassword(config)): RedisClient {
  const common: RedisOptions = {
    commandTimeout: config.command_timeout,
    connectTimeout: config.connect_timeout,
    // A Redis that stops answering (stalled, partitioned) is dropped and reconnected, instead of
    // keeping timed-out commands queued on a socket the OS may hold open for minutes.
    socketTimeout: config.command_timeout * 2,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: reconnectDelay,
    lazyConnect: true,
  };
  const { topology } = config;
  if (topology.mode === 'single') {
    // Parsed here rather than by ioredis, so that password_env reliably wins over a password in the URL.
    return new Redis({ ...common, ...endpointOf(topology.url), ...(password === undefined ? {} : { password }) });
  }
  if (topology.mode === 'sentinel') {
    // A password in a sentinel URL authenticates to the sentinels; password_env is the master's.
    const sentinels = topology.sentinels.map((text) => new URL(text));
    const first = sentinels[0];
    return new Redis({
      ...common,
      ...(password === undefined ? {} : { password }),
      sentinels: sentinels.map((url) => ({ host: url.hostname, port: Number(url.port || 26379) })),
      name: topology.name,
      ...(first?.password ? { sentinelPassword: decodeURIComponent(first.password) } : {}),
      sentinelRetryStrategy: reconnectDelay,
      ...(first?.protocol === 'rediss:' ? { enableTLSForSentinelMode: true, tls: {}, sentinelTLS: {} } : {}),
    });
  }
  const nodes = topology.nodes.map((text) => new URL(text));
  const options: ClusterOptions = {
    enableOfflineQueue: false,
    clusterRetryStrategy: reconnectDelay,
    slotsRefreshTimeout: config.connect_timeout,
    lazyConnect: true,
    redisOptions: {
      ...common,
      ...(nodes[0] ? credentialsOf(nodes[0]) : {}),
      ...(password === undefined ? {} : { password }),
      ...(nodes[0] ? tlsFor(nodes[0].href) : {}),
    },
  };
  return new Cluster(
    nodes.map((url) => ({ host: url.hostname, port: Number(url.port || 6379) })),
    options,
  );
}

const tlsFor = (url: string): Pick<RedisOptions, 'tls'> => (new URL(url).protocol === 'rediss:' ? { tls: {} } : {});

function credentialsOf(url: URL): Pick<RedisOptions, 'username' | 'password'> {
  return {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

/** host, port, db (the path), credentials and TLS of a redis:// or rediss:// URL. */
export function endpointOf(text: string): RedisOptions {
  const url = new URL(text);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || 6379),
    db: Number(url.pathname.slice(1) || 0),
    ...credentialsOf(url),
    ...tlsFor(text),
  };
}

/**
 * ioredis's connection status in words for a reason an operator reads
 * (`/readyz`, a 503's detail): its `connect` means the socket is open but the
 * connection not ready yet, which "connection is connect" did not say.
 */
export function connectionStateText(status: string): string {
  switch (status) {
    case 'wait':
      return 'not connected yet';
    case 'connect':
      return 'connected but not ready yet';
    case 'close':
    case 'end':
      return 'closed';
    default:
      // connecting, reconnecting, ready: already words.
      return status;
  }
}
