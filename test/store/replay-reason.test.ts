import { describe, expect, it } from 'vitest';
import { replayReason } from '../../src/store/replay-reason.js';
import type { RefreshTokenRecord } from '../../src/store/types.js';

const GRACE = { windowMs: 30_000, maxRetries: 5 };
const USED_AT = 1_000_000;
const used = (changes: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord => ({
  grantId: 'g',
  clientId: 'app',
  username: 'alice',
  issuedAt: 0,
  expiresAt: 86_400_000 * 2,
  usedAt: USED_AT,
  successorHash: 'h',
  successorSalt: 's',
  ...changes,
});
const successor = (changes: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord => ({ ...used(), usedAt: undefined, successorHash: undefined, successorSalt: undefined, ...changes });

/** The rules the memory store decides by and the refresh grant asks beforehand (the Redis script keeps the same order). */
describe('store/replay-reason: when presenting a used refresh token again is a retry', () => {
  it.each<[string, RefreshTokenRecord, RefreshTokenRecord | undefined, number, string | undefined]>([
    ['within the window, successor unused, no retry yet', used(), successor(), USED_AT + 29_999, undefined],
    ['within the window with four retries so far', used({ retries: 4 }), successor(), USED_AT + 1, undefined],
    ['at the end of the window', used(), successor(), USED_AT + 30_000, 'after_window'],
    ['used before the window existed (no successor kept)', used({ successorHash: undefined, successorSalt: undefined }), successor(), USED_AT + 1, 'after_window'],
    ['its successor used', used(), successor({ usedAt: USED_AT + 5 }), USED_AT + 10, 'successor_used'],
    ['its successor gone (expired or removed)', used(), undefined, USED_AT + 10, 'successor_used'],
    ['five retries already', used({ retries: 5 }), successor(), USED_AT + 10, 'too_many'],
    ['after the window and five retries: the window is judged first', used({ retries: 5 }), successor({ usedAt: USED_AT + 1 }), USED_AT + 40_000, 'after_window'],
  ])('%s', (_case, token, next, now, expected) => {
    expect(replayReason(token, next, now, GRACE)).toBe(expected);
  });
});
