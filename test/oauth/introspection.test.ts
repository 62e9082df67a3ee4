import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { APP, OTHER_APP, SUSPENDED_USER } from '../helpers/accounts.js';
import { ManualClock } from '../helpers/clock.js';
import { basicAuth, postForm } from '../helpers/forms.js';
import { bootGateway, issueTokens, refreshGrant, revoke, type TestGateway } from '../helpers/gateway.js';

type Client = { client_id: string; client_secret: string };

/**
 * RFC 7662 2.2 and 4: what an app learns about a token. app-one is an
 * ordinary client; app-two is marked `introspect: any` in accounts.yaml, a
 * resource server that introspects the tokens its callers present.
 */
describe('introspection: who learns what (RFC 7662)', () => {
  let tg: TestGateway;
  let clock: ManualClock;
  const RESOURCE_SERVER = OTHER_APP;

  const introspect = async (token: string, client: Client = APP): Promise<Record<string, unknown>> => {
    const response = await postForm(tg.url, '/oauth2/v1/introspect', { token }, basicAuth(client.client_id, client.client_secret));
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    tg = await bootGateway({ clock, appSettings: { [RESOURCE_SERVER.client_id]: { introspect: 'any' } } });
  });
  afterAll(() => tg.close());

  it("tells a client everything RFC 7662 lists about its own access token, and what its claims say", async () => {
    const { access_token } = await issueTokens(tg.url);
    const claims = decodeJwt(access_token);
    expect(await introspect(access_token)).toEqual({
      active: true,
      token_type: 'Bearer',
      client_id: APP.client_id,
      username: 'alice',
      sub: 'alice',
      iss: tg.gateway.context.issuer,
      aud: claims.aud,
      iat: claims.iat,
      exp: claims.exp,
      jti: claims.jti,
    });
  });

  it('answers a refresh token to the client it was issued to, saying it is one', async () => {
    const { refresh_token } = await issueTokens(tg.url);
    expect(await introspect(refresh_token)).toMatchObject({ active: true, token_type: 'refresh_token', client_id: APP.client_id, username: 'alice', iss: tg.gateway.context.issuer });
    expect(Object.keys(await introspect(refresh_token))).not.toContain('jti');
  });

  it("lets a resource server (introspect: any) read another client's access token", async () => {
    const { access_token } = await issueTokens(tg.url);
    expect(await introspect(access_token, RESOURCE_SERVER)).toMatchObject({ active: true, client_id: APP.client_id, sub: 'alice' });
  });

  it("tells an ordinary client nothing about another client's token: active false, as for a forged one", async () => {
    const { access_token, refresh_token } = await issueTokens(tg.url, { ...RESOURCE_SERVER });
    expect(await introspect(access_token)).toEqual({ active: false });
    expect(await introspect(refresh_token)).toEqual({ active: false });
  });

  it("never shows a resource server another client's refresh token (RFC 6749 10.4: only its client holds one)", async () => {
    const { refresh_token } = await issueTokens(tg.url);
    expect(await introspect(refresh_token, RESOURCE_SERVER)).toEqual({ active: false });
  });

  it.each([
    ['garbage', 'not-a-token'],
    ['a forged JWT', 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJhbGljZSJ9.c2ln'],
    ['a well-formed refresh token never issued', `${'A'.repeat(22)}.${'B'.repeat(43)}`],
  ])('answers %s with active false only', async (_what, token) => {
    expect(await introspect(token)).toEqual({ active: false });
    expect(await introspect(token, RESOURCE_SERVER)).toEqual({ active: false });
  });

  it('answers a revoked access token, and the tokens of a revoked grant, with active false', async () => {
    const first = await issueTokens(tg.url);
    await revoke(tg.url, first.access_token);
    expect(await introspect(first.access_token, RESOURCE_SERVER)).toEqual({ active: false });
    const second = await issueTokens(tg.url);
    await revoke(tg.url, second.refresh_token);
    expect(await introspect(second.access_token)).toEqual({ active: false });
    expect(await introspect(second.refresh_token)).toEqual({ active: false });
  });

  it('answers a used (rotated) refresh token with active false, and its successor with active true', async () => {
    const { refresh_token } = await issueTokens(tg.url);
    const successor = ((await (await refreshGrant(tg.url, refresh_token)).json()) as { refresh_token: string }).refresh_token;
    expect(await introspect(refresh_token)).toEqual({ active: false });
    expect(await introspect(successor)).toMatchObject({ active: true, token_type: 'refresh_token' });
  });

  it('answers a suspended user\'s refresh token with active false, since the refresh grant would refuse it', async () => {
    // The suspended user cannot log in, so the grant is written to the store as an earlier login would have left it.
    const { context } = tg.gateway;
    const grantId = 'S'.repeat(22);
    const value = `${grantId}.${'t'.repeat(43)}`;
    const { hashRefreshToken } = await import('../../src/tokens/refresh-token-value.js');
    const now = clock.now();
    await context.store.refreshTokens.save(
      { grantId, hash: hashRefreshToken(value) },
      { grantId, clientId: APP.client_id, username: SUSPENDED_USER.username, issuedAt: now, expiresAt: now + 60_000, grantIssuedAt: now },
    );
    expect(await introspect(value)).toEqual({ active: false });
  });

  it('answers an expired access token with active false, once past the clock leeway', async () => {
    const { access_token, refresh_token } = await issueTokens(tg.url);
    clock.advance(30 * 60_000 + 6_000);
    expect(await introspect(access_token)).toEqual({ active: false });
    expect(await introspect(access_token, RESOURCE_SERVER)).toEqual({ active: false });
    expect(await introspect(refresh_token)).toMatchObject({ active: true });
    clock.advance(24 * 3_600_000);
    expect(await introspect(refresh_token)).toEqual({ active: false });
  });
});
