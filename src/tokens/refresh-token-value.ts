import { createHash, createHmac, randomBytes, type KeyObject } from 'node:crypto';
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

/** A rotation's salt: 128 random bits, stored beside the rotated token's hash (docs/refresh-tokens.md). */
export const newRotationSalt = (): string => randomBytes(16).toString('base64url');

/**
 * The successor of `presented`: `<grant id>.<HMAC-SHA256(key, ...)>`, in the
 * format of every other refresh token. A retry within the grace window
 * computes the same value again from the token the client presents, the salt
 * the store kept and the environment's key, so the successor's value is never
 * stored, sealed or not: recomputing it takes the presented token, which only
 * its holder has, the salt, which only the store has, and the key, which only
 * the instances have (derived from the key-encryption key; docs/refresh-tokens.md).
 */
export function successorRefreshTokenValue(key: KeyObject, grantId: string, presented: string, salt: string): string {
  const secret = createHmac('sha256', key).update(`refresh-successor\0${presented}\0${salt}`).digest('base64url');
  return `${grantId}.${secret}`;
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
