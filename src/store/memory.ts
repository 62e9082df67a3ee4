import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Clock } from '../clock.js';
import type {
  KeyRingStorage,
  RateLimiterSettings,
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
  private readonly sweeper: NodeJS.Timeout;

  constructor(clock: Clock) {
    this.refreshTokens = new MemoryRefreshTokens(clock);
    this.revocations = new MemoryRevocations(clock);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();
  }

  createRateLimiter({ points, durationSeconds }: RateLimiterSettings): RateLimiterAbstract {
    return new RateLimiterMemory({ points, duration: durationSeconds });
  }

  health(): StoreHealth {
    return { ready: true };
  }

  onReconnect(): void {
    // Never disconnected.
  }

  sweep(): void {
    this.refreshTokens.sweep();
    this.revocations.sweep();
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
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

  async rotate(old: RefreshTokenRef, successorHash: string, successor: RefreshTokenRecord, now: number): Promise<RotationOutcome> {
    // Synchronous from here on: the event loop makes this check-and-set atomic.
    const current = this.live(old);
    if (!current) return { kind: 'missing' };
    if (current.usedAt !== undefined) return { kind: 'reused' };
    this.put(old.grantId, old.hash, { ...current, usedAt: now });
    this.put(old.grantId, successorHash, successor);
    return { kind: 'rotated' };
  }

  async removeGrant(grantId: string): Promise<void> {
    this.grants.delete(grantId);
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
 */
export class MemoryRevocations implements RevocationList {
  private readonly entries = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  async add(entry: RevocationEntry): Promise<void> {
    this.remember(revocationMember(entry.kind, entry.id), entry.expiresAt);
  }

  /** Merges one entry; a later, longer revocation wins and revocation is never shortened. */
  remember(member: string, expiresAt: number): void {
    const known = this.entries.get(member);
    if (known === undefined || expiresAt > known) this.entries.set(member, expiresAt);
  }

  isRevoked(kind: RevocationKind, id: string): boolean {
    const expiresAt = this.entries.get(revocationMember(kind, id));
    return expiresAt !== undefined && expiresAt > this.clock.now();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Every live entry as [member, expiresAt], e.g. to write back into a Redis that restarted empty. */
  *live(): IterableIterator<[string, number]> {
    const now = this.clock.now();
    for (const entry of this.entries) if (entry[1] > now) yield entry;
  }

  sweep(): void {
    const now = this.clock.now();
    for (const [member, expiresAt] of this.entries) if (expiresAt <= now) this.entries.delete(member);
  }
}

/** `token:<jti>` or `grant:<id>`: one name space for both kinds, in memory and in Redis alike. */
export const revocationMember = (kind: RevocationKind, id: string): string => `${kind}:${id}`;

/** One process holds the ring alone: no lock to contend, nobody else to tell. */
class MemoryKeyRingStorage implements KeyRingStorage {
  private stored: StoredKeyRing | undefined;

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
}
