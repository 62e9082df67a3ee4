import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Clock, Timer } from '../../clock.js';
import { describeStore, type RedisStoreConfig } from '../../config/store-schema.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { Logger } from '../../log/logger.js';
import { isLive, newInstanceId } from '../instances.js';
import type { RateLimiterSettings, Store, StoreHealth, WindowCounter } from '../types.js';
import { Cluster } from 'ioredis';
import { Availability, isOutage, withDeadline } from './availability.js';
import { connectionStateText, createRedisClient, type RedisClient } from './connection.js';
import { gatedRateLimiter, windowCounterOf } from './counters.js';
import { defineKeyRingScripts, parseHeartbeat, RedisKeyRingStorage } from './key-ring-storage.js';
import { keyspace, type Keyspace } from './keyspace.js';
import { probeNodes, slotOwners } from './probe.js';
import { defineRefreshTokenScripts, RedisRefreshTokens } from './refresh-tokens.js';
import { Restoration, type KeyspaceState } from './restoration.js';
import { defineRevocationScripts, RedisRevocations, RESTORED_NOTICE } from './revocations.js';
import { inspectServers, type EvictionCheck } from './servers.js';

export interface RedisStoreOptions {
  config: RedisStoreConfig;
  environment: string;
  clock: Clock;
  logger: Logger;
  /** Built from `config` unless given (tests pass their own). */
  password?: string;
  /** This instance in the instances' heartbeats; a new `host/pid/random` unless given. */
  instanceId?: string;
}

/** Repeated connection errors during one outage are logged at most this often, both connections together. */
const ERROR_LOG_INTERVAL_MS = 30_000;

/** While Redis is out of reach, every node is probed this often: a node back (empty or not) is noticed within it. */
const PROBE_INTERVAL_MS = 200;

/** How often the marker beside the revocation list is looked at: a node that lost its data without a reconnection we saw (a flush, a restart between two commands) is noticed within it. */
const WATCH_INTERVAL_MS = 1_000;

/**
 * How long a starting instance that saw an outage waits, once no live peer
 * is heard from, for a running one to write back a revocation list or key
 * ring the store lost, before it takes what is there. Peers reconnecting
 * after the same outage are heard from within the reconnection back-off
 * ceiling (1 s) plus a heartbeat on an idle machine, but a loaded one can
 * hold them up for seconds (3 s was too short once), and taking the empty
 * list too early lets revoked tokens through. Waiting longer costs only the
 * readiness of an instance started during an outage that no peer survived.
 */
export const RESTORE_WAIT_MS = 10_000;

/**
 * Redis behind the Store interface, so that many instances act as one.
 *
 * Faults: every store call has one deadline, `command_timeout`, whatever
 * ioredis retries underneath; once one call has found Redis (or a cluster
 * master) out of reach, every call is refused at once with 503 until a
 * probe finds every node answering again (Availability), and nothing
 * queues while Redis is away; at most `max_pending` commands are in
 * flight, so a slow Redis cannot pile up work. The revocation mirror keeps
 * Bearer validation going meanwhile.
 *
 * On every (re)connection, every probe that finds Redis back, and every
 * second (the marker beside the revocation list), the store reconciles: it
 * writes back what it accepted while away, notices a node that lost its
 * data (a new run id, or the marker gone) and writes the whole revocation
 * list back at once, reloads the list, and tells its listeners (the key
 * ring keeper) to do the same for the keys. A starting instance does not
 * report ready on a list that a running one is about to restore
 * (Restoration).
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
  private readonly watchTimer: NodeJS.Timeout;
  private readonly availability: Availability;
  private readonly restoration = new Restoration(RESTORE_WAIT_MS);
  private pending = 0;
  private mirrorLoaded = false;
  private runIds: ReadonlySet<string> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private waitLogged = false;
  private ringGiveUpLogged = false;
  private readonly instanceId: string;
  private reconciling: Promise<void> = Promise.resolve();
  private lastErrorLogAt = 0;
  private closed = false;
  private subscribed = false;
  private unsupported: string | undefined;
  private readonly evictionCheck: EvictionCheck;

  constructor(private readonly options: RedisStoreOptions) {
    const { config, environment, clock } = options;
    this.instanceId = options.instanceId ?? newInstanceId();
    this.evictionCheck = { done: false, logger: options.logger };
    this.keys = keyspace(environment);
    this.client = createRedisClient(config, options.password);
    defineRefreshTokenScripts(this.client);
    defineRevocationScripts(this.client);
    defineKeyRingScripts(this.client);
    this.subscriber = duplicate(this.client);
    this.availability = new Availability({
      probe: () => probeNodes(this.client, config.command_timeout),
      probeIntervalMs: PROBE_INTERVAL_MS,
      onRestored: (lostFor) => this.reconcile(`redis answers again after ${lostFor}`),
      logger: options.logger,
    });
    const guard = <T>(operation: () => Promise<T>) => this.guard(operation);
    this.refreshTokens = new RedisRefreshTokens(this.client, this.keys, clock, guard);
    this.revocations = new RedisRevocations(this.client, this.keys, clock, guard);
    this.keyRing = new RedisKeyRingStorage(this.client, this.keys, guard, this.instanceId, {
      mayCreateRing: async () => this.mayCreateRing(),
      holdsList: () => this.restoration.holdsList,
    });
    this.watch(this.client, 'commands');
    this.watch(this.subscriber, 'subscriptions');
    this.watchClusterNodes();
    this.subscriber.on('message', (channel: string, message: string) => this.receive(channel, message));
    this.armResync();
    this.watchTimer = setInterval(() => void this.checkMarker(), WATCH_INTERVAL_MS).unref();
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
    return gatedRateLimiter({ client: this.client, keyPrefix: this.keys.rateLimit(name), points, durationSeconds }, (operation) => this.guard(operation));
  }

  createWindowCounter(settings: RateLimiterSettings): WindowCounter {
    return windowCounterOf(this.createRateLimiter(settings));
  }

  health(): StoreHealth {
    if (this.client.status !== 'ready') return { ready: false, reason: `redis commands connection is ${connectionStateText(this.client.status)}` };
    if (!this.availability.open) return { ready: false, reason: `redis out of reach (${this.availability.reason})` };
    if (this.subscriber.status !== 'ready' || !this.subscribed) {
      return { ready: false, reason: `redis subscriptions connection is ${this.subscribed ? connectionStateText(this.subscriber.status) : 'not subscribed'}` };
    }
    if (this.unsupported) return { ready: false, reason: this.unsupported };
    if (this.restoration.waiting) return { ready: false, reason: 'waiting for a running instance to write back the revocation list redis lost' };
    if (!this.mirrorLoaded) return { ready: false, reason: 'revocation list not loaded yet' };
    return { ready: true };
  }

  checkWritable(): void {
    if (this.client.status !== 'ready') throw unavailable(`redis is ${connectionStateText(this.client.status)}`);
    if (!this.availability.open) throw unavailable(`redis out of reach (${this.availability.reason})`);
  }

  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.warnOfUnsentRevocations();
    this.resyncTimer?.cancel();
    clearInterval(this.watchTimer);
    clearTimeout(this.retryTimer);
    this.availability.close();
    await this.reconciling;
    await Promise.all([quit(this.client), quit(this.subscriber)]);
  }

  /**
   * Every store call: refused at once while Redis is known out of reach or
   * too many calls are pending, otherwise given `command_timeout` in all. A
   * call that finds Redis out of reach closes the store to the calls after
   * it until the probe finds every node back.
   */
  private async guard<T>(operation: () => Promise<T>): Promise<T> {
    this.checkWritable();
    if (this.pending >= this.options.config.max_pending) throw unavailable(`${this.pending} redis commands already pending`);
    this.pending++;
    // Counted until Redis (or ioredis) is done with it, even after its caller stopped waiting.
    const running = operation().finally(() => this.pending--);
    try {
      return await withDeadline(running, this.options.config.command_timeout);
    } catch (error) {
      if (isOutage(error)) {
        this.availability.lost((error as Error).message);
        // A starting instance that saw its store unreachable cannot later tell a lost list from an empty one.
        this.restoration.noteOutage();
      }
      throw unavailable(`redis command failed: ${(error as Error).message}`, error);
    }
  }

  private watch(connection: RedisClient, role: string): void {
    let everReady = false;
    connection.on('error', (error: Error) => {
      this.restoration.noteOutage();
      this.warnUnreachable(role, error.message);
    });
    connection.on('reconnecting', () => {
      // A connection starts over only after it was lost or refused. A cluster whose ready check fails (a master
      // marked failed: cluster_state:fail) starts over without an 'error' event, and without a 'node error' when the
      // failed master was not asked; starting then is starting during an outage, and the master may come back empty
      // before this instance first looks at the list.
      this.restoration.noteOutage();
      // Said for a cluster only, and before its first ready only: a standalone or Sentinel connection's reconnections
      // follow the errors that say why, and a line here would take their turn.
      if (!everReady && connection instanceof Cluster) this.warnUnreachable(role, 'not ready yet (its ready check failed: cluster_state not ok, or no answer)');
    });
    connection.on('ready', () => {
      everReady = true;
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

  /**
   * At most one line per ERROR_LOG_INTERVAL_MS for both connections together, counted afresh when either connects:
   * back-off retries would write one a second.
   */
  private warnUnreachable(role: string, message: string): void {
    const now = Date.now();
    if (now - this.lastErrorLogAt < ERROR_LOG_INTERVAL_MS) return;
    this.lastErrorLogAt = now;
    this.options.logger.warn({ store: describeStore(this.options.config), role, err: { message } }, 'redis unreachable; retrying with back-off');
  }

  /**
   * A cluster connection stays ready while one of its masters is down: the
   * loss of a master's connection is what says so. From then on calls are
   * refused at once, and the probe watches for the master's return.
   */
  private watchClusterNodes(): void {
    const cluster = this.client;
    if (!(cluster instanceof Cluster)) return;
    cluster.on('node error', (error: Error, key: string) => {
      // Ready: only a slot owner's loss counts. Still connecting: any node out of reach means the store was partly
      // away while this instance started, and afterwards it cannot tell a list lost with that node from an empty one.
      // A start that still reaches ready (another node gave the slot map, the cluster not yet marked down) raises
      // neither 'error' nor 'reconnecting', so `watch` does not see it. Without this, an instance started during a
      // master's outage adopted an empty list once its peers' heartbeats had gone stale, and let revoked tokens
      // through until they wrote the list back.
      const ready = cluster.status === 'ready';
      if (ready && !slotOwners(cluster).includes(key)) return;
      this.restoration.noteOutage();
      if (ready) this.availability.lost(`cluster master ${key}: ${error.message}`);
    });
  }

  /** Every second: the marker beside the revocation list is there, or the node holding it lost its data. */
  private async checkMarker(): Promise<void> {
    if (this.closed || !this.restoration.holdsList || !this.availability.open || this.client.status !== 'ready') return;
    const kept = await this.guard(() => this.revocations.keptSince()).catch(() => 0);
    if (kept === undefined) this.reconcile('the revocation list marker is gone');
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
    if (channel === this.keys.revocationChannel && message === RESTORED_NOTICE) this.reconcile('another instance wrote the revocation list back');
    else if (channel === this.keys.revocationChannel) this.revocations.receive(message);
    else if (channel === this.keys.keyRingChannel) this.keyRing.changed();
  }

  /** One reconciliation at a time, in order; each one is complete or logged. */
  private reconcile(reason: string): void {
    this.reconciling = this.reconciling.then(() => this.reconcileNow(reason)).catch((error: unknown) => {
      this.restoration.noteOutage();
      // An outage is expected, not a defect: its message says enough, and a stack of ioredis frames says nothing more.
      const outage = isOutage(error);
      if (outage) this.availability.lost(`resync: ${(error as Error).message}`);
      this.options.logger.warn({ reason, err: outage ? { message: (error as Error).message } : error }, 'could not resync with redis; will retry');
    });
  }

  private async reconcileNow(reason: string): Promise<void> {
    if (this.closed || this.client.status !== 'ready' || !this.availability.open) return;
    const { logger } = this.options;
    const { runIds, problem } = await inspectServers(this.client, this.evictionCheck);
    if (problem) {
      this.unsupported = problem;
      logger.error({ problem }, 'redis cannot be used as the store');
      return;
    }
    this.unsupported = undefined;
    // A process we have not seen before: restarted, or failed over to a replica that may have lagged.
    const newProcess = this.runIds !== undefined && [...runIds].some((id) => !this.runIds!.has(id));
    this.runIds = runIds;
    let verdict = this.restoration.decide(await this.lookAtKeyspace(), Date.now());
    if (verdict === 'load' && newProcess && this.restoration.holdsList) verdict = 'restore';
    if (verdict === 'wait') {
      if (!this.waitLogged) logger.info({ reason }, 'redis has no revocation list and a running instance should write it back: not ready until it does');
      this.waitLogged = true;
      this.retryTimer = setTimeout(() => this.reconcile('waiting for the revocation list to be written back'), PROBE_INTERVAL_MS).unref();
    } else {
      await this.loadList(verdict, reason);
    }
    // The key ring goes its own way: it may be whole even while the list is being restored.
    for (const listener of this.reconnectListeners) listener();
  }

  /**
   * Revocations this instance accepted while Redis was out of reach live only
   * in its mirror until Redis is back: stopping now loses them for every other
   * instance. Nothing can write them anywhere else, so the operator is told.
   */
  private warnOfUnsentRevocations(): void {
    const unsent = this.revocations.unsentCount;
    if (unsent === 0) return;
    this.options.logger.error(
      { unsent },
      'stopping with revocations redis was never told: other instances accept those tokens until they expire (each revocation was answered 503; revoke them again once redis is back)',
    );
  }

  /** A new key ring, when no peer will write the old one back; said at warn when it comes after waiting for one. */
  private async mayCreateRing(): Promise<boolean> {
    const may = this.restoration.mayCreateRing(await this.lookAtKeyspace(), Date.now());
    if (may && this.restoration.waitedForRing && !this.ringGiveUpLogged) {
      this.ringGiveUpLogged = true;
      this.options.logger.warn(
        'no running instance wrote the key ring back: creating a new one (tokens signed by the earlier keys are refused; their users log in again)',
      );
    }
    return may;
  }

  /** Writes back what redis lost or was not told, reloads the mirror, and marks the list whole. */
  private async loadList(verdict: 'load' | 'restore' | 'adopt', reason: string): Promise<void> {
    const { logger } = this.options;
    const flushed = await this.revocations.flushUnsent();
    if (flushed) logger.warn({ flushed }, 'wrote revocations accepted while redis was unreachable');
    if (verdict === 'restore') {
      const written = await this.revocations.writeBack();
      await this.revocations.markKept(true);
      logger.warn({ reason, written }, 'redis lost its data (restarted, flushed or failed over): wrote the revocation list back');
    }
    await this.revocations.resync();
    if (verdict === 'adopt' && this.restoration.waiting) {
      // Waited for a peer to write the list back, and none did: what Redis lost is gone.
      logger.warn(
        { revocations: this.revocations.size },
        'no running instance wrote the revocation list back: taking what redis holds as the whole list (revocations it lost are forgotten; those tokens are accepted again until they expire)',
      );
    }
    if (verdict === 'adopt') await this.revocations.markKept(false);
    if (!this.mirrorLoaded) logger.info({ revocations: this.revocations.size }, 'revocation list loaded');
    this.restoration.loaded();
    this.revocations.markLoaded();
    this.mirrorLoaded = true;
  }

  /** The marker, and which other live instances hold the list or a ring, from their heartbeats. */
  private async lookAtKeyspace(): Promise<KeyspaceState> {
    const [listKeptSince, heartbeats] = await Promise.all([this.revocations.keptSince(), this.client.hgetall(this.keys.instances)]);
    // Real time, as the heartbeats are written (keys/acknowledgements.ts).
    const now = Date.now();
    let peersHoldingList = 0;
    let peersHoldingRing = 0;
    for (const [id, value] of Object.entries(heartbeats)) {
      const beat = parseHeartbeat(value);
      if (id === this.instanceId || !isLive(beat.seenAt, now)) continue;
      if (beat.holdsList) peersHoldingList++;
      if (beat.ringVersion > 0) peersHoldingRing++;
    }
    return { listKept: listKeptSince !== undefined, listKeptSince, peersHoldingList, peersHoldingRing };
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
