import type { Clock } from '../clock.js';
import type {
  RefreshTokenRecord,
  RefreshTokenStore,
  RevocationEntry,
  RevocationKind,
  RevocationList,
  RotationOutcome,
  Store,
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
  private readonly sweeper: NodeJS.Timeout;

  constructor(clock: Clock) {
    this.refreshTokens = new MemoryRefreshTokens(clock);
    this.revocations = new MemoryRevocations(clock);
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();
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
  private readonly records = new Map<string, RefreshTokenRecord>();
  private readonly byGrant = new Map<string, Set<string>>();

  constructor(private readonly clock: Clock) {}

  async save(tokenHash: string, record: RefreshTokenRecord): Promise<void> {
    this.put(tokenHash, record);
  }

  async find(tokenHash: string): Promise<RefreshTokenRecord | undefined> {
    return this.live(tokenHash);
  }

  async rotate(oldHash: string, newHash: string, successor: RefreshTokenRecord, now: number): Promise<RotationOutcome> {
    // Synchronous from here on: the event loop makes this check-and-set atomic.
    const current = this.live(oldHash);
    if (!current) return { kind: 'missing' };
    if (current.usedAt !== undefined) return { kind: 'reused' };
    this.records.set(oldHash, { ...current, usedAt: now });
    this.put(newHash, successor);
    return { kind: 'rotated' };
  }

  async removeGrant(grantId: string): Promise<void> {
    for (const hash of this.byGrant.get(grantId) ?? []) this.records.delete(hash);
    this.byGrant.delete(grantId);
  }

  sweep(): void {
    const now = this.clock.now();
    for (const [hash, record] of this.records) if (record.expiresAt <= now) this.forget(hash, record);
  }

  private put(hash: string, record: RefreshTokenRecord): void {
    this.records.set(hash, record);
    let hashes = this.byGrant.get(record.grantId);
    if (!hashes) this.byGrant.set(record.grantId, (hashes = new Set()));
    hashes.add(hash);
  }

  private live(hash: string): RefreshTokenRecord | undefined {
    const record = this.records.get(hash);
    if (record && record.expiresAt <= this.clock.now()) {
      this.forget(hash, record);
      return undefined;
    }
    return record;
  }

  private forget(hash: string, record: RefreshTokenRecord): void {
    this.records.delete(hash);
    const hashes = this.byGrant.get(record.grantId);
    hashes?.delete(hash);
    if (hashes?.size === 0) this.byGrant.delete(record.grantId);
  }
}

class MemoryRevocations implements RevocationList {
  private readonly entries = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  async add(entry: RevocationEntry): Promise<void> {
    const key = `${entry.kind}:${entry.id}`;
    // A later, longer revocation wins; revocation is never shortened.
    this.entries.set(key, Math.max(this.entries.get(key) ?? 0, entry.expiresAt));
  }

  isRevoked(kind: RevocationKind, id: string): boolean {
    const expiresAt = this.entries.get(`${kind}:${id}`);
    return expiresAt !== undefined && expiresAt > this.clock.now();
  }

  get size(): number {
    return this.entries.size;
  }

  sweep(): void {
    const now = this.clock.now();
    for (const [key, expiresAt] of this.entries) if (expiresAt <= now) this.entries.delete(key);
  }
}
