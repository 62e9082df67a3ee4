import type { RefreshGrace, RefreshTokenRecord, ReplayReason } from './types.js';

/**
 * Why presenting `used` again is not a retry, or undefined when it is: the
 * rules of the Redis rotation script, in the same order. The memory store
 * decides with it; the refresh grant asks it beforehand only to refuse a
 * retry uncounted (a user who may not refresh), never to rotate.
 */
export function replayReason(used: RefreshTokenRecord, successor: RefreshTokenRecord | undefined, now: number, grace: RefreshGrace): ReplayReason | undefined {
  if (used.successorHash === undefined || used.successorSalt === undefined || now >= (used.usedAt ?? 0) + grace.windowMs) return 'after_window';
  if (!successor || successor.usedAt !== undefined) return 'successor_used';
  if ((used.retries ?? 0) >= grace.maxRetries) return 'too_many';
  return undefined;
}
