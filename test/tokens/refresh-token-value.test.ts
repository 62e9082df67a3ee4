import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashRefreshToken, newGrantId, newRefreshTokenValue, refreshTokenRef } from '../../src/tokens/refresh-token-value.js';

describe('refresh token values', () => {
  it('are <grant id>.<256 random bits>, both base64url, new every time', () => {
    const grantId = newGrantId();
    expect(grantId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const value = newRefreshTokenValue(grantId);
    expect(value).toMatch(new RegExp(`^${grantId}\\.[A-Za-z0-9_-]{43}$`));
    expect(newRefreshTokenValue(grantId)).not.toBe(value);
  });

  it('are stored as the SHA-256 of the whole value only', () => {
    const value = newRefreshTokenValue(newGrantId());
    expect(hashRefreshToken(value)).toBe(createHash('sha256').update(value).digest('base64url'));
    expect(refreshTokenRef(value)).toEqual({ grantId: value.split('.')[0], hash: hashRefreshToken(value) });
  });

  it.each([
    ['empty', ''],
    ['no dot', 'a'.repeat(66)],
    ['a short grant id', `${'a'.repeat(21)}.${'b'.repeat(43)}`],
    ['a short secret', `${'a'.repeat(22)}.${'b'.repeat(42)}`],
    ['characters outside base64url', `${'a'.repeat(22)}.${'b'.repeat(42)}=`],
    ['an access token', 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'],
  ])('cannot be ours when %s: no store lookup needed', (_case, value) => {
    expect(refreshTokenRef(value)).toBeUndefined();
  });
});
