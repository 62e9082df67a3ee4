/**
 * The storage contract. The in-memory store implements it for one process;
 * a Redis store implements the same methods so that many instances act as
 * one. Both pass the same contract suite (test/store/contract.ts).
 *
 * Every record carries its own expiry (epoch ms); a store forgets a record
 * once the clock passes it and never returns an expired one.
 */

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
}

export type RotationOutcome =
  /** The old token was unused and is now used; the successor is saved. */
  | { readonly kind: 'rotated' }
  /** The old token had been used already: a replay (OAuth 2.0 Security BCP 4.14). */
  | { readonly kind: 'reused' }
  /** Unknown, expired, or removed with its grant. */
  | { readonly kind: 'missing' };

export interface RefreshTokenStore {
  save(tokenHash: string, record: RefreshTokenRecord): Promise<void>;
  find(tokenHash: string): Promise<RefreshTokenRecord | undefined>;
  /**
   * Marks `oldHash` used and saves the successor in one atomic step, so two
   * concurrent exchanges of the same token cannot both succeed.
   */
  rotate(oldHash: string, newHash: string, successor: RefreshTokenRecord, now: number): Promise<RotationOutcome>;
  /** Forgets every refresh token of a grant. */
  removeGrant(grantId: string): Promise<void>;
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
}

export interface Store {
  readonly refreshTokens: RefreshTokenStore;
  readonly revocations: RevocationList;
  close(): Promise<void>;
}
