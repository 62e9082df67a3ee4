import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../src/context.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { KeyRing } from '../../src/keys/key-ring.js';
import { generateSigningKey } from '../../src/keys/signing-key.js';
import { verifiedAccessToken } from '../../src/oauth/presented-token.js';
import { AccessTokens } from '../../src/tokens/access-token.js';
import { ManualClock } from '../helpers/clock.js';

const ISSUER = 'https://api.example.com';
const TTL_MS = 30 * 60_000;
const LEEWAY_MS = 5_000;
const SUBJECT = { username: 'alice', clientId: 'app-one', grantId: 'grant-1' };

async function service(loaded = true) {
  const clock = new ManualClock();
  const ring = new KeyRing({ algorithm: 'ES256', rotationIntervalMs: 24 * 3_600_000, retentionMs: TTL_MS + LEEWAY_MS, clock });
  if (loaded) ring.replaceKeys([await generateSigningKey('ES256', clock.now())]);
  const accessTokens = new AccessTokens({ ring, issuer: ISSUER, acceptedIssuers: [ISSUER], audience: ISSUER, acceptedAudiences: [ISSUER], ttlMs: TTL_MS, leewayMs: LEEWAY_MS, clock, cacheSize: 0 });
  return { clock, ring, accessTokens, ctx: { accessTokens } as unknown as GatewayContext };
}

/**
 * What revocation (RFC 7009 2.2) and introspection (RFC 7662 2.2) make of a
 * presented access token: its claims when it verifies, undefined (an answer:
 * nothing to revoke, not active) when it does not.
 */
describe('oauth/presented-token: an access token presented to revoke or introspect', () => {
  it('gives the claims of a token this service issued, while it is valid', async () => {
    const { clock, accessTokens, ctx } = await service();
    const { token, claims } = await accessTokens.issue(SUBJECT, clock.now());
    expect(await verifiedAccessToken(ctx, token)).toEqual(claims);
  });

  it.each<[string, (s: Awaited<ReturnType<typeof service>>) => Promise<string>]>([
    ['garbage', async () => 'not-a-token'],
    ['an empty string', async () => ''],
    ['a refresh token (not a JWT)', async () => `${'A'.repeat(22)}.${'B'.repeat(43)}`],
    ['a token signed by a key not in the ring (a forgery, another service)', async ({ clock }) => {
      const stranger = await generateSigningKey('ES256', clock.now());
      return new SignJWT({ sub: 'alice', client_id: 'app-one', sid: 'g' }).setProtectedHeader({ alg: 'ES256', kid: stranger.kid, typ: 'at+jwt' }).setIssuer(ISSUER).setAudience(ISSUER).setIssuedAt().setExpirationTime('1h').sign(stranger.privateKey);
    }],
    ['a token of our key for another issuer', async ({ clock, ring }) => {
      const key = ring.selectSigningKey();
      const now = Math.floor(clock.now() / 1000);
      return new SignJWT({ sub: 'alice', client_id: 'app-one', sid: 'g', jti: 'j' }).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' }).setIssuer('https://evil.example').setAudience(ISSUER).setIssuedAt(now).setExpirationTime(now + 60).sign(key.privateKey);
    }],
    ['a token with one character of its signature changed', async ({ clock, accessTokens }) => {
      const { token } = await accessTokens.issue(SUBJECT, clock.now());
      const last = token.at(-2) === 'A' ? 'B' : 'A';
      return `${token.slice(0, -2)}${last}${token.at(-1)}`;
    }],
  ])('gives undefined for %s', async (_what, make) => {
    const tokens = await service();
    expect(await verifiedAccessToken(tokens.ctx, await make(tokens))).toBeUndefined();
  });

  it('gives undefined for an expired token once the clock leeway has passed, and its claims until then', async () => {
    const { clock, accessTokens, ctx } = await service();
    const { token } = await accessTokens.issue(SUBJECT, clock.now());
    clock.advance(TTL_MS + LEEWAY_MS - 1);
    expect(await verifiedAccessToken(ctx, token)).toMatchObject({ sub: 'alice' });
    clock.advance(1);
    expect(await verifiedAccessToken(ctx, token)).toBeUndefined();
  });

  it('stays a 503 while the verification keys are not loaded: never a false "nothing to revoke" or "not active"', async () => {
    const { ctx } = await service(false);
    const thrown = await verifiedAccessToken(ctx, 'x.y.z').then(() => undefined, (error: unknown) => error);
    expect(isGatewayError(thrown) && { code: thrown.code, status: thrown.status }).toEqual({ code: 'SERVICE_UNAVAILABLE', status: 503 });
  });
});
