import { hash } from 'node:crypto';
import type { KeyRing } from '../keys/key-ring.js';
import type { AccessTokenClaims } from './access-token-claims.js';

interface VerifiedToken {
  readonly claims: Readonly<AccessTokenClaims>;
  /** The key that verified it: a token stays good only while its key is published. */
  readonly kid: string;
  readonly alg: string;
  /** Epoch ms from which the token counts as expired (exp plus the clock leeway). */
  readonly expiredFromMs: number;
}

/**
 * Access tokens whose signature and claims were already verified.
 *
 * A client reuses one token for 30 minutes (SPEC 5.5), and an ES256
 * verification costs ~130 µs, more than the rest of a protected call: this
 * cache is where the proxy's throughput comes from. An entry answers only
 * while the token is unexpired and its key is still in the ring; revocation
 * is not cached at all (the caller checks it on every request).
 *
 * Keyed by the token's SHA-256 (~1 µs): a whole token as key would keep
 * ~600 bytes per entry alive instead of 43 (an entry is ~500 bytes with its
 * claims). Bounded; when full, the oldest
 * entry goes (first in, first out: a token evicted while still in use costs
 * one verification to come back).
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, VerifiedToken>();

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The claims of a token (by its `tokenId`) verified before, if it is still valid now; undefined means: verify it. */
  find(id: string, ring: KeyRing, nowMs: number): Readonly<AccessTokenClaims> | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    // The same comparison jose makes, in ms: never valid longer than a fresh verification would be.
    if (nowMs < entry.expiredFromMs && ring.selectVerificationKey({ kid: entry.kid, alg: entry.alg }) !== undefined) return entry.claims;
    this.entries.delete(id);
    return undefined;
  }

  remember(id: string, claims: AccessTokenClaims, header: { kid: string; alg: string }, leewayMs: number): Readonly<AccessTokenClaims> {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    const frozen = Object.freeze(claims);
    this.entries.set(id, { claims: frozen, kid: header.kid, alg: header.alg, expiredFromMs: claims.exp * 1000 + leewayMs });
    return frozen;
  }
}

/** What the cache knows a token by: computed once per verification, for the lookup and, on a miss, the entry. */
export const tokenId = (token: string): string => hash('sha256', token, 'base64url');
