/** SPEC 2.1 rule 1: the access token lifetime the spec's renewal advice is written for. */
export const SPEC_ACCESS_TOKEN_LIFETIME_MS = 30 * 60_000;

/** SPEC 5.5 and 8: replace the token "at about the 28 or 29 minute mark"; 28 leaves two minutes for an outage. */
export const DEFAULT_RENEW_AFTER_MS = 28 * 60_000;

/**
 * A token is never handed out for API calls this close to its expiry, however
 * the renewal point was set: the call still has to travel, and the gateway's
 * instances may disagree on the time by a few seconds.
 */
export const EXPIRY_MARGIN_MS = 10_000;

/** When a held access token is renewed and until when it may still be used, on the client's clock. */
export interface RenewalSchedule {
  /** From this moment the next call renews (SPEC 5.5). */
  renewAt: number;
  /** After this moment the token is not used even if renewal fails. */
  usableUntil: number;
}

/**
 * The schedule of a token obtained by a request sent at `requestedAt`.
 *
 * The token's life is counted on the client's clock from the moment the
 * request was sent, not from `issued_at`: SPEC 2.1 defines `expires_in` as
 * counted "from the time of the request", and `issued_at` is the gateway's
 * clock, which may disagree with the client's by minutes. Sent-time is never
 * later than the true issue time, so the estimate errs on the early side.
 *
 * `renewAfterMs` is written for the spec's 30-minute token; a token with a
 * shorter lifetime is renewed at the same proportion (28 of 30 minutes by
 * default), a longer one no later than `renewAfterMs`, and never later than
 * the expiry minus EXPIRY_MARGIN_MS.
 */
export function scheduleRenewal(requestedAt: number, lifetimeMs: number, renewAfterMs = DEFAULT_RENEW_AFTER_MS): RenewalSchedule {
  const usableFor = Math.max(0, lifetimeMs - EXPIRY_MARGIN_MS);
  const proportional = (lifetimeMs * renewAfterMs) / SPEC_ACCESS_TOKEN_LIFETIME_MS;
  const renewAfter = Math.min(renewAfterMs, proportional, usableFor);
  return { renewAt: requestedAt + Math.floor(renewAfter), usableUntil: requestedAt + usableFor };
}
