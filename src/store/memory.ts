import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Clock, Timer } from '../clock.js';
import { summariseGrant } from './grant-summary.js';
import { replayReason } from './replay-reason.js';
import type {
  GrantFilter,
  GrantSummary,
  InstanceRecord,
  KeyRingStorage,
  RateLimiterSettings,
  RefreshGrace,
  RefreshSuccessor,
  RefreshTokenRecord,
  RefreshTokenRef,
  RefreshTokenStore,
  RevocationEntry,
  RevocationKind,
  RevocationList,
  RotationOutcome,
  Store,
  StoredKeyRing,
  StoreHealth,
  WindowCounter,
} from './types.js';

/** How often expired records are swept; lookups never return them in between. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * The embedded default: one process, no dependencies, nothing survives a
 * restart (refresh tokens and revocations are lost with the process; use
 * Redis where that matters).
 */
export class MemoryStore implements Store {
  readonly refreshTokens: MemoryRefreshTokens;
  readonly revocations: MemoryRevocations;
  readonly keyRing = new MemoryKeyRingStorage();
  private sweeper: Timer;

  constructor(private readonly clock: Clock) {
    this.refreshTokens = new MemoryRefreshTokens(clock);
    this.revocations = new MemoryRevocations(clock);
    this.sweeper = this.armSweeper();
  }

  /** On the clock's timer, re-armed each time: a test sees a sweep when it advances its clock a sweep interval. */
  private armSweeper(): Timer {
    return this.clock.setTimer(() => {
      this.sweeper = this.armSweeper();
      this.sweep();
    }, SWEEP_INTERVAL_MS);
  }

  createRateLimiter({ points, durationSeconds }: RateLimiterSettings): RateLimiterAbstract {
    return new RateLimiterMemory({ points, duration: durationSeconds });
  }

  createWindowCounter({ points }: RateLimiterSettings): WindowCounter {
    return new MemoryWindowCounter(points);
  }

  health(): StoreHealth {
    return { ready: true };
  }

  checkWritable(): void {
    // Always writable.
  }

  onReconnect(): void {
    // Never disconnected.
  }

  sweep(): void {
    this.refreshTokens.sweep();
    this.revocations.sweep();
  }

  async close(): Promise<void> {
    this.sweeper.cancel();
  }
}

/**
 * The current window's counts, nothing else. Not rate-limiter-flexible's
 * memory limiter: that keeps a record and a timer per key for at least a
 * second, although a spike-arrest window is often a millisecond, and answers
 * through a promise; at thousands of requests a second those records were
 * most of what a protected call left for the old generation's collector
 * (bench/README.md, "What changed"). A window's counts go when the next
 * window is asked about; a clock stepped back starts a fresh window too.
 */
export class MemoryWindowCounter implements WindowCounter {
  private window: string | undefined;
  // Replaced rather than cleared: a new map starts young with its entries (a cleared one keeps an old table).
  private counts = new Map<string, number>();

  constructor(private readonly points: number) {}

  admit(key: string, window: string): boolean {
    if (window !== this.window) {
      this.window = window;
      this.counts = new Map();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count <= this.points;
  }
}

class MemoryRefreshTokens implements RefreshTokenStore {
  /** grant id -> token hash -> record: a grant is removed in one step. */
  private readonly grants = new Map<string, Map<string, RefreshTokenRecord>>();

  constructor(private readonly clock: Clock) {}

  async save(ref: RefreshTokenRef, record: RefreshTokenRecord): Promise<void> {
    this.put(ref.grantId, ref.hash, record);
  }

  async find(ref: RefreshTokenRef): Promise<RefreshTokenRecord | undefined> {
    return this.live(ref);
  }

  /** The decision of the Redis store's rotation script, in one synchronous step: the event loop makes it atomic. */
  async rotate(old: RefreshTokenRef, successor: RefreshSuccessor, now: number, grace: RefreshGrace): Promise<RotationOutcome> {
    const current = this.live(old);
    if (!current) return { kind: 'missing' };
    if (current.usedAt === undefined) {
      this.put(old.grantId, old.hash, { ...current, usedAt: now, successorHash: successor.hash, successorSalt: successor.salt });
      this.put(old.grantId, successor.hash, successor.record);
      return { kind: 'rotated' };
    }
    const next = current.successorHash === undefined ? undefined : this.live({ grantId: old.grantId, hash: current.successorHash });
    const reason = replayReason(current, next, now, grace);
    if (reason) return { kind: 'reused', reason };
    const retry = (current.retries ?? 0) + 1;
    this.put(old.grantId, old.hash, { ...current, retries: retry });
    return { kind: 'retried', successorHash: current.successorHash as string, salt: current.successorSalt as string, retry };
  }

  async removeGrant(grantId: string): Promise<void> {
    this.grants.delete(grantId);
  }

  /** A Map iterator tolerates grants removed while the caller revokes them between yields. */
  async *activeGrants(filter: GrantFilter): AsyncIterable<GrantSummary> {
    for (const tokens of this.grants.values()) {
      const summary = summariseGrant(tokens.values(), this.clock.now(), filter);
      if (summary) yield summary;
    }
  }

  sweep(): void {
    const now = this.clock.now();
    for (const [grantId, tokens] of this.grants) {
      for (const [hash, record] of tokens) if (record.expiresAt <= now) tokens.delete(hash);
      if (tokens.size === 0) this.grants.delete(grantId);
    }
  }

  private put(grantId: string, hash: string, record: RefreshTokenRecord): void {
    let tokens = this.grants.get(grantId);
    if (!tokens) this.grants.set(grantId, (tokens = new Map()));
    tokens.set(hash, record);
  }

  private live({ grantId, hash }: RefreshTokenRef): RefreshTokenRecord | undefined {
    const record = this.grants.get(grantId)?.get(hash);
    return record && record.expiresAt > this.clock.now() ? record : undefined;
  }
}

/**
 * The revocation list in memory. Also the mirror every Redis-backed instance
 * keeps, so that Bearer validation never waits on the network.
 *
 * Sized for millions of entries: one map per kind keyed by the bare id (no
 * `token:` prefix to store a million times), and expiries in whole seconds,
 * rounded up, which V8 keeps inline instead of as an 16-byte heap number.
 * Rounding up only ever makes a revocation last up to a second longer.
 */
export class MemoryRevocations implements RevocationList {
  private readonly byKind: Record<RevocationKind, Map<string, number>> = { token: new Map(), grant: new Map() };

  /** The list itself: nothing to load. */
  readonly loaded = true;

  constructor(private readonly clock: Clock) {}

  async add(entry: RevocationEntry): Promise<void> {
    this.rememberEntry(entry.kind, entry.id, entry.expiresAt);
  }

  /** Merges one entry named as in Redis (`token:<jti>`, `grant:<id>`); anything else is ignored. */
  remember(member: string, expiresAt: number): void {
    const colon = member.indexOf(':');
    const kind = member.slice(0, colon);
    if (kind === 'token' || kind === 'grant') this.rememberEntry(kind, member.slice(colon + 1), expiresAt);
  }

  /** A later, longer revocation wins; a revocation is never shortened. */
  rememberEntry(kind: RevocationKind, id: string, expiresAt: number): void {
    const entries = this.byKind[kind];
    const seconds = Math.ceil(expiresAt / 1000);
    const known = entries.get(id);
    if (known === undefined || seconds > known) entries.set(known === undefined ? detached(id) : id, seconds);
  }

  isRevoked(kind: RevocationKind, id: string): boolean {
    const seconds = this.byKind[kind].get(id);
    return seconds !== undefined && seconds * 1000 > this.clock.now();
  }

  get size(): number {
    return this.byKind.token.size + this.byKind.grant.size;
  }

  /** Every live entry as [member, expiresAt], e.g. to write back into a Redis that restarted empty. */
  *live(): IterableIterator<[string, number]> {
    const now = this.clock.now();
    for (const kind of REVOCATION_KINDS) {
      for (const [id, seconds] of this.byKind[kind]) if (seconds * 1000 > now) yield [revocationMember(kind, id), seconds * 1000];
    }
  }

  sweep(): void {
    const now = this.clock.now();
    for (const kind of REVOCATION_KINDS) {
      const entries = this.byKind[kind];
      for (const [id, seconds] of entries) if (seconds * 1000 <= now) entries.delete(id);
    }
  }
}

const REVOCATION_KINDS: readonly RevocationKind[] = ['token', 'grant'];

/**
 * A copy of `id` that holds no reference to a longer string. An id sliced
 * from a pub/sub message would otherwise keep the whole message alive for
 * as long as the entry lives, doubling its memory.
 */
const detached = (id: string): string => Buffer.from(id, 'utf8').toString('utf8');

/** `token:<jti>` or `grant:<id>`: one name space for both kinds, in memory and in Redis alike. */
export const revocationMember = (kind: RevocationKind, id: string): string => `${kind}:${id}`;

/** One process holds the ring alone: no lock to contend, nobody else to tell, no other instance to hear from. */
class MemoryKeyRingStorage implements KeyRingStorage {
  readonly instanceId = 'this-process';
  private stored: StoredKeyRing | undefined;
  private self: InstanceRecord | undefined;

  async load(): Promise<StoredKeyRing | undefined> {
    return this.stored;
  }

  async save(ring: StoredKeyRing, expectedVersion: number): Promise<boolean> {
    if ((this.stored?.version ?? 0) !== expectedVersion) return false;
    this.stored = ring;
    return true;
  }

  async tryLock(): Promise<() => Promise<void>> {
    return async () => {};
  }

  onChange(): void {
    // Nobody else writes.
  }

  async acknowledge(ringVersion: number, now: number): Promise<number> {
    this.self = { id: this.instanceId, seenAt: now, ringVersion };
    return this.stored?.version ?? 0;
  }

  async instances(): Promise<InstanceRecord[]> {
    return this.self ? [this.self] : [];
  }

  async depart(): Promise<void> {
    this.self = undefined;
  }

  async mayCreateRing(): Promise<boolean> {
    return true;
  }
}
