import { createHash, randomBytes } from 'node:crypto';
import type { RefreshTokenRef } from '../store/types.js';

/** A grant id: 128 random bits, base64url (22 characters). */
export const newGrantId = (): string => randomBytes(16).toString('base64url');

/**
 * Refresh tokens are opaque to clients: `<grant id>.<256 random bits>`, both
 * base64url. The grant id tells the store where the token lives without a
 * second index (a grant is one Redis key, so rotation and removal are
 * single-key atomic operations, also on a cluster); the random part is the
 * secret. Only the SHA-256 of the whole value is stored: a fast hash is
 * enough because the value has full entropy.
 */
export function newRefreshTokenValue(grantId: string): string {
  return `${grantId}.${randomBytes(32).toString('base64url')}`;
}

const REFRESH_TOKEN = /^([A-Za-z0-9_-]{22})\.[A-Za-z0-9_-]{43}$/;

/** Where a presented value would be stored, or undefined when it cannot be one of ours (no lookup needed). */
export function refreshTokenRef(value: string): RefreshTokenRef | undefined {
  const grantId = REFRESH_TOKEN.exec(value)?.[1];
  return grantId === undefined ? undefined : { grantId, hash: hashRefreshToken(value) };
}

export function hashRefreshToken(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}
