import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Clock, Timer } from '../../clock.js';
import { describeStore, type RedisStoreConfig } from '../../config/store-schema.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { Logger } from '../../log/logger.js';
import type { RateLimiterSettings, Store, StoreHealth } from '../types.js';
import { Cluster } from 'ioredis';
import { createRedisClient, type RedisClient } from './connection.js';
import { defineKeyRingScripts, RedisKeyRingStorage } from './key-ring-storage.js';
import { keyspace, type Keyspace } from './keyspace.js';
import { defineRefreshTokenScripts, RedisRefreshTokens } from './refresh-tokens.js';
import { defineRevocationScripts, RedisRevocations } from './revocations.js';

export interface RedisStoreOptions {
  config: RedisStoreConfig;
  environment: string;
  clock: Clock;
  logger: Logger;
  /** Built from `config` unless given (tests pass their own). */
  password?: string;
}

/** ZADD GT (a revocation is never shortened) arrived in Redis 6.2. */
const MIN_REDIS_VERSION = '6.2.0';

function compareVersions(a: string, b: string): number {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** Repeated connection errors during one outage are logged at most this often. */
const ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * Redis behind the Store interface, so that many instances act as one.
 *
 * Faults: every command has a timeout and nothing queues while Redis is
 * away, so a request that must write gets a 503 at once; at most
 * `max_pending` commands are in flight, so a slow Redis cannot pile up
 * work. The revocation mirror keeps Bearer validation going meanwhile. On
 * every (re)connection the store writes back what it accepted while away,
 * notices a Redis that restarted (its run id changed) and writes the whole
 * revocation list back, reloads the list, and tells its listeners (the key
 * ring keeper) to do the same for the keys.
 */
export class RedisStore implements Store {
  readonly refreshTokens: RedisRefreshTokens;
  readonly revocations: RedisRevocations;
  readonly keyRing: RedisKeyRingStorage;
  private readonly client: RedisClient;
  private readonly subscriber: RedisClient;
  private readonly keys: Keyspace;
  private readonly reconnectListeners: Array<() => void> = [];
  private resyncTimer: Timer | undefined;
  private pending = 0;
  private mirrorLoaded = false;
  private runId: string | undefined;
  private reconciling: Promise<void> = Promise.resolve();
  private lastErrorLogAt = 0;
  private closed = false;
  private subscribed = false;
  private unsupported: string | undefined;
  private evictionChecked = false;

  constructor(private readonly options: RedisStoreOptions) {
    const { config, environment, clock } = options;
    this.keys = keyspace(environment);
    this.client = createRedisClient(config, options.password);
    defineRefreshTokenScripts(this.client);
    defineRevocationScripts(this.client);
    defineKeyRingScripts(this.client);
    this.subscriber = duplicate(this.client);
    const guard = <T>(operation: () => Promise<T>) => this.guard(operation);
    this.refreshTokens = new RedisRefreshTokens(this.client, this.keys, clock, guard);
    this.revocations = new RedisRevocations(this.client, this.keys, clock, guard);
    this.keyRing = new RedisKeyRingStorage(this.client, this.keys, guard);
    this.watch(this.client, 'commands');
    this.watch(this.subscriber, 'subscriptions');
    this.subscriber.on('message', (channel: string, message: string) => this.receive(channel, message));
    this.armResync();
  }

  /**
   * The periodic resync, on the clock's timer (a test advances its clock to
   * run one). Armed again once the resync has run, so resyncs never pile up
   * behind a slow Redis, and an advance of a test clock runs one at a time.
   */
  private armResync(): void {
    if (this.closed) return;
    this.resyncTimer = this.options.clock.setTimer(() => {
      if (!this.subscribed && this.subscriber.status === 'ready') {
        this.subscribe();
        this.armResync();
      } else {
        this.reconcile('periodic resync');
        void this.reconciling.then(() => this.armResync());
      }
    }, this.options.config.resync_interval);
  }

  /** Starts connecting; returns at once. Until Redis answers, `health()` says why the store is not ready. */
  connect(): void {
    const ignore = () => undefined; // failures arrive as 'error' events and are retried with back-off
    this.client.connect().catch(ignore);
    this.subscriber.connect().catch(ignore);
  }

  createRateLimiter({ name, points, durationSeconds }: RateLimiterSettings): RateLimiterAbstract {
    // While Redis is away each instance counts on its own (the insurance limiter) rather than failing requests.
    return new RateLimiterRedis({
      storeClient: this.client,
      keyPrefix: this.keys.rateLimit(name),
      points,
      duration: durationSeconds,
      insuranceLimiter: new RateLimiterMemory({ points, duration: durationSeconds }),
    });
  }

  health(): StoreHealth {
    if (this.client.status !== 'ready') return { ready: false, reason: `redis commands connection is ${this.client.status}` };
    if (this.subscriber.status !== 'ready' || !this.subscribed) {
      return { ready: false, reason: `redis subscriptions connection is ${this.subscribed ? this.subscriber.status : 'not subscribed'}` };
    }
    if (this.unsupported) return { ready: false, reason: this.unsupported };
    if (!this.mirrorLoaded) return { ready: false, reason: 'revocation list not loaded yet' };
    return { ready: true };
  }

  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.resyncTimer?.cancel();
    await this.reconciling;
    await Promise.all([quit(this.client), quit(this.subscriber)]);
  }

  private async guard<T>(operation: () => Promise<T>): Promise<T> {
    if (this.client.status !== 'ready') throw unavailable(`redis is ${this.client.status}`);
    if (this.pending >= this.options.config.max_pending) throw unavailable(`${this.pending} redis commands already pending`);
    this.pending++;
    try {
      return await operation();
    } catch (error) {
      throw unavailable(`redis command failed: ${(error as Error).message}`, error);
    } finally {
      this.pending--;
    }
  }

  private watch(connection: RedisClient, role: string): void {
    connection.on('error', (error: Error) => {
      const now = Date.now();
      if (now - this.lastErrorLogAt < ERROR_LOG_INTERVAL_MS) return;
      this.lastErrorLogAt = now;
      this.options.logger.warn({ store: describeStore(this.options.config), role, err: { message: error.message } }, 'redis unreachable; retrying with back-off');
    });
    connection.on('ready', () => {
      this.lastErrorLogAt = 0;
      this.options.logger.info({ store: describeStore(this.options.config), role }, 'redis connected');
      if (connection === this.subscriber) this.subscribe();
      else this.reconcile(`${role} connection ready`);
    });
    connection.on('close', () => {
      if (connection === this.subscriber) this.subscribed = false;
      // Not ready again until the mirror has been reloaded: messages may have been missed meanwhile.
      else this.mirrorLoaded = false;
      if (!this.closed) this.options.logger.debug({ role }, 'redis connection closed');
    });
  }

  /** (Re)subscribes, then reloads everything: whatever was published while unsubscribed is picked up by the reload. */
  private subscribe(): void {
    this.subscriber.subscribe(this.keys.revocationChannel, this.keys.keyRingChannel).then(
      () => {
        this.subscribed = true;
        this.reconcile('subscribed');
      },
      (error: unknown) => this.options.logger.warn({ err: error }, 'could not subscribe to redis channels; retrying on reconnect'),
    );
  }

  private receive(channel: string, message: string): void {
    if (channel === this.keys.revocationChannel) this.revocations.receive(message);
    else if (channel === this.keys.keyRingChannel) this.keyRing.changed();
  }

  /** One reconciliation at a time, in order; each one is complete or logged. */
  private reconcile(reason: string): void {
    this.reconciling = this.reconciling.then(() => this.reconcileNow(reason)).catch((error: unknown) => {
      this.options.logger.warn({ reason, err: error }, 'could not resync with redis; will retry');
    });
  }

  private async reconcileNow(reason: string): Promise<void> {
    if (this.closed || this.client.status !== 'ready') return;
    const { logger } = this.options;
    const { runId, problem } = await this.inspectServers();
    if (problem) {
      this.unsupported = problem;
      logger.error({ problem }, 'redis cannot be used as the store');
      return;
    }
    this.unsupported = undefined;
    if (this.runId !== undefined && runId !== this.runId) {
      const written = await this.revocations.writeBack();
      logger.warn({ reason, written }, 'redis restarted or failed over (run id changed): wrote the revocation list back');
    }
    this.runId = runId;
    const flushed = await this.revocations.flushUnsent();
    if (flushed) logger.warn({ flushed }, 'wrote revocations accepted while redis was unreachable');
    await this.revocations.resync();
    if (!this.mirrorLoaded) logger.info({ revocations: this.revocations.size }, 'revocation list loaded');
    this.mirrorLoaded = true;
    for (const listener of this.reconnectListeners) listener();
  }

  /**
   * The run id identifies the Redis process (every master of a cluster): it
   * changes when Redis restarts, empty or not. Also refuses a Redis too old
   * for ZADD GT, and warns about an eviction policy that could silently drop
   * revocations (no run id change would reveal that loss).
   */
  private async inspectServers(): Promise<{ runId: string; problem?: string }> {
    const nodes = 'nodes' in this.client ? this.client.nodes('master') : [this.client];
    const infos = await Promise.all(nodes.map((node) => node.info('server')));
    const runId = infos
      .map((info) => /run_id:(\w+)/.exec(info)?.[1] ?? '')
      .sort()
      .join(',');
    const versions = infos.map((info) => /redis_version:([\d.]+)/.exec(info)?.[1] ?? '0');
    const tooOld = versions.find((version) => compareVersions(version, MIN_REDIS_VERSION) < 0);
    if (tooOld) return { runId, problem: `redis ${tooOld} is older than ${MIN_REDIS_VERSION}, which the store needs (ZADD GT)` };
    if (!this.evictionChecked) {
      this.evictionChecked = true;
      const policies = await Promise.all(nodes.map((node) => node.config('GET', 'maxmemory-policy').catch(() => [])));
      const evicting = policies.map((reply) => String((reply as string[])[1] ?? 'unknown')).find((policy) => policy !== 'noeviction' && policy !== 'unknown');
      if (evicting) {
        this.options.logger.warn({ maxmemoryPolicy: evicting }, 'redis may evict keys: revocations could be lost without notice; use maxmemory-policy noeviction');
      }
    }
    return { runId };
  }
}

function unavailable(detail: string, cause?: unknown): GatewayError {
  return new GatewayError('SERVICE_UNAVAILABLE', { detail, cause, headers: { 'Retry-After': '1' } });
}

/** A second connection of the same kind for pub/sub (a subscribed connection can run nothing else). */
function duplicate(client: RedisClient): RedisClient {
  return client instanceof Cluster ? client.duplicate() : client.duplicate();
}

async function quit(connection: RedisClient): Promise<void> {
  const forced = setTimeout(() => connection.disconnect(), 1_000).unref();
  try {
    await connection.quit();
  } catch {
    connection.disconnect();
  } finally {
    clearTimeout(forced);
  }
}
