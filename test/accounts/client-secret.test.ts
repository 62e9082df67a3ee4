import { describe, expect, it } from 'vitest';
import { generateClientSecret } from '../../src/accounts/client-secret.js';

describe('a new client secret', () => {
  it('is 256 random bits as 43 base64url characters', () => {
    const secret = generateClientSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
  });

  it('is new every time', () => {
    const secrets = new Set(Array.from({ length: 100 }, generateClientSecret));
    expect(secrets.size).toBe(100);
  });
});
