/**
 * Publish before use: when a key may start signing, given when it was
 * published. A resource server that caches our JWKS for its `max-age` must
 * already hold a key when it meets the first token signed with it, so a key
 * signs only once every instance has published it for longer than that
 * cache lifetime, plus a margin for the change notice to reach every
 * instance and for their clocks to disagree a little.
 *
 * The JWKS endpoint's `Cache-Control: max-age` is declared here, once, and
 * read both by the endpoint and by the key ring.
 */

/** Five minutes: the longest a resource server may keep our JWKS. */
export const JWKS_MAX_AGE_CEILING_S = 300;

/** Propagation of a new ring to every instance (milliseconds over pub/sub) and clock skew between them, with room to spare. */
export const PROPAGATION_MARGIN_MS = 10_000;

/**
 * The JWKS `max-age`, in seconds: five minutes, and never more than half a
 * rotation interval, so that a scheduled key (published a whole interval
 * ahead) is in every cached copy before it signs.
 */
export function jwksMaxAgeSeconds(rotationIntervalMs: number): number {
  return Math.min(JWKS_MAX_AGE_CEILING_S, Math.floor(rotationIntervalMs / 2000));
}

/**
 * How long a key must have been published before it may sign: the JWKS
 * cache lifetime plus the propagation margin. The margin is a tenth of the
 * interval when that is smaller (intervals of seconds, which only tests
 * use), so that the lead stays below the interval and a rotation now can
 * still bring the next key forward.
 */
export function publicationLeadMs(rotationIntervalMs: number): number {
  return jwksMaxAgeSeconds(rotationIntervalMs) * 1000 + Math.min(PROPAGATION_MARGIN_MS, Math.floor(rotationIntervalMs / 10));
}

/** The earliest time a key published at `publishedAt` may sign. */
export function earliestSigningTime(publishedAt: number, rotationIntervalMs: number): number {
  return publishedAt + publicationLeadMs(rotationIntervalMs);
}
