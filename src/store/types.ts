/**
 * The storage contract. The in-memory store implements it for one process;
 * a Redis store implements the same methods so that many instances act as
 * one. Both pass the same contract suite (test/store/contract.ts).
 *
 * Every record carries its own expiry (epoch ms); a store forgets a record
 * once the clock passes it and never returns an expired one.
 */

import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { MaybePromise } from '../maybe-promise.js';

/**
 * Where a refresh token is kept: its grant (which every store groups tokens
 * by, so that a grant is one Redis key and one cluster slot) and the SHA-256
 * of its value, never the value.
 */
export interface RefreshTokenRef {
  readonly grantId: string;
  readonly hash: string;
}

/** One refresh token, stored under the SHA-256 of its value, never the value. */
export interface RefreshTokenRecord {
  /** The grant (login) this token belongs to; every token rotated from it shares the id. */
  readonly grantId: string;
  readonly clientId: string;
  readonly username: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** Set when the token was exchanged; kept until expiry so a replay is recognised. */
  readonly usedAt?: number;
  /**
   * Set with `usedAt`: the hash of the one successor this token was exchanged
   * for, and the salt that successor's value was derived with
   * (tokens/refresh-token-value.ts), so that a retry within the grace window
   * is answered with the same successor (RFC 9700 4.14.2: one successor per
   * token). Absent in records used before the grace window existed: their
   * replay is theft, as it was.
   */
  readonly successorHash?: string;
  readonly successorSalt?: string;
  /** Retries answered with the successor so far (absent: none). */
  readonly retries?: number;
  /**
   * When the grant began (the login), carried from token to token: the first
   * token's own record is pruned once it expires, and the admin API still
   * wants to show when the login happened. Absent in records written before.
   */
  readonly grantIssuedAt?: number;
}

/** One login as the admin API shows it: who, which client, since when, until when; never a token or its hash. */
export interface GrantSummary {
  readonly grantId: string;
  readonly username: string;
  readonly clientId: string;
  /** When the grant began: its first token was issued. */
  readonly issuedAt: number;
  /** When its latest refresh token was issued; undefined when it was never refreshed. */
  readonly lastRefreshedAt: number | undefined;
  /** When its latest unused refresh token expires: the grant ends then unless it is refreshed. */
  readonly expiresAt: number;
}

/** Narrows a listing of grants; both given means both must match. */
export interface GrantFilter {
  readonly username?: string;
  readonly clientId?: string;
}

/** The successor a rotation saves: its hash and record, and the salt its value was derived with. */
export interface RefreshSuccessor {
  readonly hash: string;
  readonly salt: string;
  readonly record: RefreshTokenRecord;
}

/** When presenting a used token again is a retry (answered with its successor) rather than theft. */
export interface RefreshGrace {
  /** From the rotation; 0: never (every second use is theft). */
  readonly windowMs: number;
  /** Retries answered per rotation; the next presentation is theft. */
  readonly maxRetries: number;
}

/** Why presenting a used token was not a retry: the grant is to be revoked. */
export type ReplayReason =
  /** After the grace window (or with none), or a token used before the window existed. */
  | 'after_window'
  /** Its successor has been used (or has expired) already: the client moved on, so this is someone else. */
  | 'successor_used'
  /** More retries than a client makes. */
  | 'too_many';

export type RotationOutcome =
  /** The old token was unused and is now used; the successor is saved. */
  | { readonly kind: 'rotated' }
  /** The old token was rotated within the grace window: answer the same successor, derived again with this salt. */
  | { readonly kind: 'retried'; readonly successorHash: string; readonly salt: string; readonly retry: number }
  /** The old token had been used already and this is no retry: a replay (RFC 9700 4.14.2). */
  | { readonly kind: 'reused'; readonly reason: ReplayReason }
  /** Unknown, expired, or removed with its grant. */
  | { readonly kind: 'missing' };

export interface RefreshTokenStore {
  save(ref: RefreshTokenRef, record: RefreshTokenRecord): Promise<void>;
  find(ref: RefreshTokenRef): Promise<RefreshTokenRecord | undefined>;
  /**
   * One atomic decision on a presented token, even across instances: an
   * unused one is marked used (with its successor's hash and salt) and the
   * successor saved; a used one whose successor is unused, within `grace`
   * and its retries, is a retry (counted) and names that successor; any
   * other used one is a replay. Of concurrent exchanges of one token exactly
   * one rotates; the others are retries or replays, never a second successor.
   */
  rotate(old: RefreshTokenRef, successor: RefreshSuccessor, now: number, grace: RefreshGrace): Promise<RotationOutcome>;
  /** Forgets every refresh token of a grant. */
  removeGrant(grantId: string): Promise<void>;
  /**
   * Every active grant (one with an unused, unexpired refresh token) that
   * matches `filter`, one at a time, in no particular order. It reads every
   * grant of the environment, O(grants): an admin operation, never a request
   * path. Memory stays bounded (a store reads a batch at a time), and grants
   * removed meanwhile are safe to skip or to list.
   */
  activeGrants(filter: GrantFilter): AsyncIterable<GrantSummary>;
}

export type RevocationKind = 'token' | 'grant';

export interface RevocationEntry {
  readonly kind: RevocationKind;
  /** A `jti` for `token`, a grant id for `grant`. */
  readonly id: string;
  /** When every token the entry covers has expired anyway and the entry can go. */
  readonly expiresAt: number;
}

export interface RevocationList {
  add(entry: RevocationEntry): Promise<void>;
  /**
   * Answered from memory, synchronously: Bearer validation must not wait on a
   * store round trip (a Redis store keeps a local mirror current).
   */
  isRevoked(kind: RevocationKind, id: string): boolean;
  readonly size: number;
  /**
   * False until the whole list has been loaded once (a Redis-backed instance
   * that is starting, maybe while Redis is out of reach or waiting for a
   * peer to write the list back): until then `isRevoked` could miss a
   * revocation, so Bearer validation answers 503 instead of guessing.
   */
  readonly loaded: boolean;
}

/** The key ring as the store keeps it: an opaque document (private keys sealed) with a version. */
export interface StoredKeyRing {
  readonly version: number;
  readonly document: string;
}

/** An instance as the shared store last heard from it: its heartbeat and the ring version it has installed. */
export interface InstanceRecord {
  /** `host/pid/random`: unique per process, readable by an operator. */
  readonly id: string;
  /** Its last heartbeat (epoch ms, by its own clock). */
  readonly seenAt: number;
  /** The version of the stored ring it had installed then (0: none yet). */
  readonly ringVersion: number;
}

export interface KeyRingStorage {
  /** This instance, as it appears in `instances()`. */
  readonly instanceId: string;
  load(): Promise<StoredKeyRing | undefined>;
  /** Writes `ring` only if the stored version is still `expectedVersion` (0: nothing stored); false otherwise. */
  save(ring: StoredKeyRing, expectedVersion: number): Promise<boolean>;
  /** The exclusive right to change the ring, held at most `ttlMs`; undefined while another instance holds it. */
  tryLock(ttlMs: number): Promise<(() => Promise<void>) | undefined>;
  /** Called when another instance saved a new ring. */
  onChange(listener: () => void): void;
  /**
   * The heartbeat: this instance is alive at `now` and has installed ring
   * `ringVersion`. Answers the stored ring's version (0: none), so that an
   * instance that missed a change notice catches up at its next beat.
   */
  acknowledge(ringVersion: number, now: number): Promise<number>;
  /** Every instance heard from within `horizonMs` of `now`; older records are forgotten. */
  instances(now: number, horizonMs: number): Promise<InstanceRecord[]>;
  /** This instance stops: forgets its record, so that no rotation waits for it or reports it. */
  depart(): Promise<void>;
  /**
   * Whether an instance that has no ring yet may create one now, the store
   * holding none: false while the store shows signs of an environment whose
   * ring was lost and that a running instance is about to write back.
   */
  mayCreateRing(): Promise<boolean>;
}

export interface RateLimiterSettings {
  /** Names the counters, e.g. the policy name; the store adds its environment prefix. */
  readonly name: string;
  readonly points: number;
  readonly durationSeconds: number;
}

/**
 * Admissions per key in numbered windows: spike arrest's counters. The
 * caller names the window from its own clock (`"29544721.3"`: the rate's
 * unit, a second or a minute..., and the slot in it). In memory only the
 * window last asked about is kept, so the counter never holds more than one
 * window's keys, and a return to an older window (a clock stepped back)
 * starts it afresh; on Redis each window is its own key, kept until it
 * expires after `durationSeconds`.
 */
export interface WindowCounter {
  /**
   * Counts one for `key` in `window`; true while that stays within the
   * counter's points. Synchronous in memory (no promise, no microtask turn
   * on the hot path); a promise on Redis.
   */
  admit(key: string, window: string): MaybePromise<boolean>;
}

export interface StoreHealth {
  readonly ready: boolean;
  /** Why not, for the readiness endpoint and logs. */
  readonly reason?: string;
}

export interface Store {
  readonly refreshTokens: RefreshTokenStore;
  readonly revocations: RevocationList;
  readonly keyRing: KeyRingStorage;
  /** Counters shared by every instance on the same store (rate-limiter-flexible). */
  createRateLimiter(settings: RateLimiterSettings): RateLimiterAbstract;
  /** Counters per window (spike arrest), shared like the rate limiters; `durationSeconds` covers one window. */
  createWindowCounter(settings: RateLimiterSettings): WindowCounter;
  health(): StoreHealth;
  /**
   * Throws SERVICE_UNAVAILABLE (503, Retry-After) at once when the store is
   * known unable to take writes now (Redis out of reach): callers about to
   * do expensive work before a write (hashing a password) ask first.
   */
  checkWritable(): void;
  /**
   * Calls `listener` whenever the store has (re)connected and its local
   * mirrors are current again: the key ring should be re-read (and written
   * back if the store came back empty).
   */
  onReconnect(listener: () => void): void;
  close(): Promise<void>;
}
