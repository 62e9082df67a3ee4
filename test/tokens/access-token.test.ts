import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { KeyRing } from '../../src/keys/key-ring.js';
import { generateSigningKey, type SigningAlgorithm } from '../../src/keys/signing-key.js';
import { AccessTokens } from '../../src/tokens/access-token.js';
import { ManualClock } from '../helpers/clock.js';

const ISSUER = 'https://us.api.example.com';
const OTHER_REGION = 'https://uk.api.example.com';
const TTL_MS = 30 * 60_000;
const LEEWAY_MS = 5_000;
const SUBJECT = { username: 'alice', clientId: 'portal', grantId: 'grant-1' };

async function service(over: Partial<ConstructorParameters<typeof AccessTokens>[0]> = {}, algorithm: SigningAlgorithm = 'ES256') {
  const clock = new ManualClock();
  const ring = new KeyRing({ algorithm, rotationIntervalMs: 24 * 3_600_000, retentionMs: TTL_MS + LEEWAY_MS, clock });
  ring.replaceKeys([await generateSigningKey(algorithm, clock.now())]);
  const tokens = new AccessTokens({ ring, issuer: ISSUER, acceptedIssuers: [ISSUER, OTHER_REGION], audience: ISSUER, acceptedAudiences: [ISSUER, OTHER_REGION], ttlMs: TTL_MS, leewayMs: LEEWAY_MS, clock, ...over });
  return { clock, ring, tokens };
}

/** 'valid', or the jose code a refusal carries as its detail. */
const verdict = (promise: Promise<unknown>) =>
  promise.then(
    () => 'valid',
    (error: unknown) => (isGatewayError(error) ? `${error.code} ${error.detail}` : String(error)),
  );

describe('access tokens (RFC 9068)', () => {
  it('signs the claims of every access token with the signing key, typ at+jwt', async () => {
    const { clock, ring, tokens } = await service();
    const { token, claims } = await tokens.issue(SUBJECT, clock.now() + 999);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: ring.selectSigningKey().kid, typ: 'at+jwt' });
    const iat = Math.floor((clock.now() + 999) / 1000);
    expect(decodeJwt(token)).toEqual({ ...claims });
    expect(claims).toEqual({ iss: ISSUER, sub: 'alice', aud: ISSUER, client_id: 'portal', iat, exp: iat + 1_800, jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), sid: 'grant-1' });
    expect(tokens.ttlSeconds).toBe(1_800);
  });

  it('verifies its own tokens and those of a trusted region', async () => {
    const { clock, ring, tokens } = await service();
    const { token } = await tokens.issue(SUBJECT, clock.now());
    expect(await tokens.verify(token)).toMatchObject({ sub: 'alice', sid: 'grant-1' });
    const uk = new AccessTokens({ ring, issuer: OTHER_REGION, acceptedIssuers: [OTHER_REGION], audience: OTHER_REGION, acceptedAudiences: [OTHER_REGION], ttlMs: TTL_MS, leewayMs: LEEWAY_MS, clock });
    expect(await verdict(tokens.verify((await uk.issue(SUBJECT, clock.now())).token))).toBe('valid');
  });

  it('accepts a token until exp plus the leeway, and refuses it from then on', async () => {
    const { clock, tokens } = await service({ cacheSize: 0 });
    const { token } = await tokens.issue(SUBJECT, clock.now());
    clock.advance(TTL_MS + LEEWAY_MS - 1);
    expect(await verdict(tokens.verify(token))).toBe('valid');
    clock.advance(1);
    expect(await verdict(tokens.verify(token))).toBe('ACCESS_TOKEN_INVALID ERR_JWT_EXPIRED');
  });

  it('answers a token verified before synchronously on the hot path, and a new one with a promise', async () => {
    const { clock, tokens } = await service();
    const { token } = await tokens.issue(SUBJECT, clock.now());
    const first = tokens.recallOrVerify(token);
    expect(first).toBeInstanceOf(Promise);
    const claims = await first;
    const again = tokens.recallOrVerify(token);
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toBe(claims);
    // A forgery of a known token is not known: it goes to the signature check, and fails there.
    const forged = `${token.slice(0, -2)}${token.endsWith('A') ? 'BB' : 'AA'}`;
    const check = tokens.recallOrVerify(forged);
    expect(check).toBeInstanceOf(Promise);
    expect(await verdict(check as Promise<unknown>)).toMatch(/^ACCESS_TOKEN_INVALID /);
  });

  it('answers 503 while the key ring is not loaded (a shared store not reached yet)', async () => {
    const clock = new ManualClock();
    const ring = new KeyRing({ algorithm: 'ES256', rotationIntervalMs: 3_600_000, retentionMs: 60_000, clock });
    const tokens = new AccessTokens({ ring, issuer: ISSUER, acceptedIssuers: [ISSUER], audience: ISSUER, acceptedAudiences: [ISSUER], ttlMs: TTL_MS, leewayMs: LEEWAY_MS, clock });
    expect(await verdict(tokens.verify('x.y.z'))).toBe('SERVICE_UNAVAILABLE verification keys not loaded yet');
  });

  describe('refuses, as ACCESS_TOKEN_INVALID with the jose code for the log', () => {
    it.each([
      ['garbage', async () => 'not-a-jwt', 'ERR_JWS_INVALID'],
      ['alg none', async () => new UnsecuredJWT({ sub: 'alice' }).encode(), 'ERR_JOSE_ALG_NOT_ALLOWED'],
      ['a key not in the ring', async (clock: ManualClock) => {
        const stranger = await generateSigningKey('ES256', clock.now());
        return new SignJWT({ sub: 'a' }).setProtectedHeader({ alg: 'ES256', kid: stranger.kid, typ: 'at+jwt' }).sign(stranger.privateKey);
      }, 'ERR_JWKS_NO_MATCHING_KEY'],
    ] as const)('%s', async (_case, make, code) => {
      const { clock, tokens } = await service();
      expect(await verdict(tokens.verify(await make(clock)))).toBe(`ACCESS_TOKEN_INVALID ${code}`);
    });

    it.each([
      ['another issuer', { iss: 'https://evil.example' }, 'ERR_JWT_CLAIM_VALIDATION_FAILED'],
      ['another audience', { aud: 'https://elsewhere.example' }, 'ERR_JWT_CLAIM_VALIDATION_FAILED'],
      ['no sid', { sid: undefined }, 'ERR_JWT_CLAIM_VALIDATION_FAILED'],
      ['no client_id', { client_id: undefined }, 'ERR_JWT_CLAIM_VALIDATION_FAILED'],
    ])('%s', async (_case, change, code) => {
      const { clock, ring, tokens } = await service();
      const key = ring.selectSigningKey();
      const { claims } = await tokens.issue(SUBJECT, clock.now());
      const forged = await new SignJWT({ ...claims, ...change } as Record<string, unknown>).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' }).sign(key.privateKey);
      expect(await verdict(tokens.verify(forged))).toBe(`ACCESS_TOKEN_INVALID ${code}`);
    });

    it('the wrong typ (an ID token, say)', async () => {
      const { clock, ring, tokens } = await service();
      const key = ring.selectSigningKey();
      const { claims } = await tokens.issue(SUBJECT, clock.now());
      const idToken = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
      expect(await verdict(tokens.verify(idToken))).toBe('ACCESS_TOKEN_INVALID ERR_JWT_CLAIM_VALIDATION_FAILED');
    });
  });
});

describe('the signature, per algorithm', () => {
  async function ringOf(alg: SigningAlgorithm) {
    const { clock, ring, tokens } = await service({}, alg);
    return { clock, key: ring.selectSigningKey(), tokens };
  }

  it.each(['ES256', 'EdDSA', 'RS256', 'PS256'] as const)('%s: the header and claims jose writes, signed so that jose verifies them with the public key', async (alg) => {
    const { clock, key, tokens } = await ringOf(alg);
    const { token, claims } = await tokens.issue(SUBJECT, clock.now());
    const byJose = await new SignJWT(claims).setProtectedHeader({ alg, kid: key.kid, typ: 'at+jwt' }).sign(key.privateKey);
    expect(token.split('.').slice(0, 2)).toEqual(byJose.split('.').slice(0, 2));
    const { payload, protectedHeader } = await jwtVerify(token, key.publicKey, { algorithms: [alg], typ: 'at+jwt', currentDate: new Date(clock.now()) });
    expect(protectedHeader).toEqual({ alg, kid: key.kid, typ: 'at+jwt' });
    expect(payload).toEqual(claims);
    expect(await verdict(tokens.verify(token))).toBe('valid');
  });

  it.each(['ES256', 'EdDSA'] as const)('%s: a 64-byte signature (R || S for ES256, RFC 7518 3.4, not DER); a changed claim no longer verifies', async (alg) => {
    const { clock, key, tokens } = await ringOf(alg);
    const { token } = await tokens.issue(SUBJECT, clock.now());
    const [header, payload, signature] = token.split('.') as [string, string, string];
    expect(Buffer.from(signature, 'base64url')).toHaveLength(64);
    const changed = Buffer.from(JSON.stringify({ ...decodeJwt(token), sub: 'mallory' })).toString('base64url');
    await expect(jwtVerify(`${header}.${changed}.${signature}`, key.publicKey, { currentDate: new Date(clock.now()) })).rejects.toThrow('signature verification failed');
    expect(payload).not.toBe(changed);
  });

  it.each([
    ['ES256', 0],
    ['EdDSA', 0],
    ['RS256', 1],
  ] as const)('%s: signed through WebCrypto (libuv\'s thread pool) %i time(s) per token', async (alg, pooled) => {
    const { clock, tokens } = await ringOf(alg);
    const subtleSign = vi.spyOn(crypto.subtle, 'sign');
    try {
      await tokens.issue(SUBJECT, clock.now());
      expect(subtleSign).toHaveBeenCalledTimes(pooled);
    } finally {
      subtleSign.mockRestore();
    }
  });
});
