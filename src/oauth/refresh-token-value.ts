import { createHash, randomBytes } from 'node:crypto';

/**
 * Refresh tokens are opaque: 256 random bits, base64url. Only their SHA-256 is
 * stored; a fast hash is enough because the value has full entropy (a slow
 * password hash protects guessable secrets, which these are not).
 */
export function newRefreshTokenValue(): string {
  return randomBytes(32).toString('base64url');
}

export function hashRefreshToken(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** A value that could be one of ours; anything else is unknown without a store lookup. */
export const looksLikeRefreshToken = (value: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(value);
