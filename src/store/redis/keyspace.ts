/**
 * Every key and channel the gateway uses in Redis. All start with
 * `tg:<environment>:`, so environments sharing one Redis never see each
 * other's data; every key carries a hash tag (`{...}`), so that whatever a
 * script touches together lives in one Redis Cluster slot.
 */
export interface Keyspace {
  /** Hash of one grant's refresh tokens (token hash -> record): one key per grant spreads grants over the cluster. */
  grant(grantId: string): string;
  /** SCAN pattern matching every grant key of this environment (environment names hold no glob characters). */
  readonly grantPattern: string;
  /** Sorted set of revoked `token:<jti>` / `grant:<id>` members, scored by when they may be forgotten. */
  readonly revocations: string;
  readonly revocationChannel: string;
  /**
   * Written beside the revocation list (same slot) by an instance that holds
   * the whole list: its absence means the node lost its data (restarted
   * empty, flushed, failed over to an empty replica) or the environment is new.
   */
  readonly revocationsKept: string;
  /** Hash with the sealed key ring and its version. */
  readonly keyRing: string;
  readonly keyRingLock: string;
  readonly keyRingChannel: string;
  /** Hash of the live instances (id -> last heartbeat and installed ring version), beside the ring. */
  readonly instances: string;
  /** Prefix for rate-limiter-flexible's counters. */
  rateLimit(name: string): string;
}

export function keyspace(environment: string): Keyspace {
  const prefix = `tg:${environment}`;
  return {
    grant: (grantId) => `${prefix}:grant:{${grantId}}`,
    grantPattern: `${prefix}:grant:{*}`,
    revocations: `${prefix}:{revocations}`,
    revocationChannel: `${prefix}:revocations`,
    revocationsKept: `${prefix}:{revocations}:kept`,
    keyRing: `${prefix}:{keyring}`,
    keyRingLock: `${prefix}:{keyring}:lock`,
    keyRingChannel: `${prefix}:keyring`,
    instances: `${prefix}:{keyring}:instances`,
    rateLimit: (name) => `${prefix}:rl:${name}`,
  };
}
