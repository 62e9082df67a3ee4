import { createHash, createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashRefreshToken, newGrantId, newRefreshTokenValue, newRotationSalt, refreshTokenRef, successorRefreshTokenValue } from '../../src/tokens/refresh-token-value.js';

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

  describe('a successor', () => {
    const key = createSecretKey(randomBytes(32));
    const grantId = newGrantId();
    const presented = newRefreshTokenValue(grantId);

    it('is a refresh token of the same grant, in the same format', () => {
      const successor = successorRefreshTokenValue(key, grantId, presented, newRotationSalt());
      expect(successor).toMatch(new RegExp(`^${grantId}\\.[A-Za-z0-9_-]{43}$`));
      expect(refreshTokenRef(successor)?.grantId).toBe(grantId);
    });

    it('is the same for the same presented token, salt and key: a retry recomputes it', () => {
      const salt = newRotationSalt();
      expect(successorRefreshTokenValue(createSecretKey(key.export()), grantId, presented, salt)).toBe(successorRefreshTokenValue(key, grantId, presented, salt));
    });

    it('differs with another presented token, salt or key: none of them alone gives it away', () => {
      const salt = newRotationSalt();
      const successor = successorRefreshTokenValue(key, grantId, presented, salt);
      expect(successorRefreshTokenValue(key, grantId, newRefreshTokenValue(grantId), salt)).not.toBe(successor);
      expect(successorRefreshTokenValue(key, grantId, presented, newRotationSalt())).not.toBe(successor);
      expect(successorRefreshTokenValue(createSecretKey(randomBytes(32)), grantId, presented, salt)).not.toBe(successor);
    });

    it('has salts of 128 random bits', () => {
      expect(newRotationSalt()).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(newRotationSalt()).not.toBe(newRotationSalt());
    });
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
