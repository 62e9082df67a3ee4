import { describe, expect, it } from 'vitest';
import { KeyRing } from '../../src/keys/key-ring.js';
import { generateSigningKey } from '../../src/keys/signing-key.js';
import { AccessTokens } from '../../src/tokens/access-token.js';
import { ManualClock } from '../helpers/clock.js';

const ISSUER = 'https://gateway.test';
const TTL_MS = 30 * 60_000;
const LEEWAY_MS = 5_000;

async function tokenService(cacheSize?: number) {
  const clock = new ManualClock();
  const ring = new KeyRing({ algorithm: 'ES256', rotationIntervalMs: 24 * 3600_000, retentionMs: TTL_MS + LEEWAY_MS, clock });
  ring.replaceKeys([await generateSigningKey('ES256', clock.now())]);
  const settings = { ring, issuer: ISSUER, acceptedIssuers: [ISSUER], audience: ISSUER, acceptedAudiences: [ISSUER], ttlMs: TTL_MS, leewayMs: LEEWAY_MS, clock };
  const tokens = new AccessTokens({ ...settings, cacheSize });
  /** The same settings without a memory of earlier verifications: what a fresh verification decides. */
  const uncached = () => new AccessTokens({ ...settings });
  const issue = async () => (await tokens.issue({ username: 'u', clientId: 'c', grantId: 'g' }, clock.now())).token;
  return { clock, ring, tokens, uncached, issue };
}

const verdict = (promise: Promise<unknown>) => promise.then(
  () => 'valid',
  (error: { detail?: string }) => error.detail ?? 'invalid',
);

describe('verified-token cache', () => {
  it('answers a token verified before from memory: the same frozen claims, one entry', async () => {
    const { tokens, issue } = await tokenService();
    const token = await issue();
    const first = await tokens.verify(token);
    const second = await tokens.verify(token);
    expect(second).toBe(first);
    expect(Object.isFrozen(second)).toBe(true);
    expect(tokens.cachedCount).toBe(1);
  });

  it('expires a cached token at exactly the instant a fresh verification would', async () => {
    const { clock, tokens, uncached, issue } = await tokenService();
    const token = await issue();
    await tokens.verify(token);
    const expiredFrom = (Math.floor(clock.now() / 1000) + TTL_MS / 1000) * 1000 + LEEWAY_MS;
    for (const offset of [-1_001, -1, 0, 1, 999, 1_000]) {
      clock.advance(expiredFrom + offset - clock.now());
      const fresh = await verdict(uncached().verify(token));
      expect([offset, await verdict(tokens.verify(token))]).toEqual([offset, fresh]);
      expect(fresh).toBe(offset < 0 ? 'valid' : 'ERR_JWT_EXPIRED');
    }
  });

  it('refuses a cached token once its key has left the ring', async () => {
    const { clock, ring, tokens, issue } = await tokenService();
    const token = await issue();
    await tokens.verify(token);
    ring.replaceKeys([await generateSigningKey('ES256', clock.now())]);
    await expect(tokens.verify(token)).rejects.toMatchObject({ code: 'ACCESS_TOKEN_INVALID', detail: 'ERR_JWKS_NO_MATCHING_KEY' });
  });

  it('is never fooled by a token that differs from a cached one only in its signature', async () => {
    const { tokens, issue } = await tokenService();
    const token = await issue();
    await tokens.verify(token);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    await expect(tokens.verify(`${header}.${payload}.${flipped}`)).rejects.toMatchObject({ code: 'ACCESS_TOKEN_INVALID' });
  });

  it('stays within its bound, letting the oldest entry go first', async () => {
    const { tokens, issue } = await tokenService(2);
    const [a, b, c] = [await issue(), await issue(), await issue()];
    const claimsOfA = await tokens.verify(a);
    await tokens.verify(b);
    await tokens.verify(c);
    expect(tokens.cachedCount).toBe(2);
    // a was evicted: verified again (new claims object), and still valid.
    const again = await tokens.verify(a);
    expect(again).not.toBe(claimsOfA);
    expect(again).toEqual(claimsOfA);
  });

  it('never remembers a failed verification', async () => {
    const { tokens } = await tokenService();
    await expect(tokens.verify('not.a.token')).rejects.toMatchObject({ code: 'ACCESS_TOKEN_INVALID' });
    expect(tokens.cachedCount).toBe(0);
  });
});
