import { afterEach, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { APP, OTHER_APP, SUSPENDED_APP, USER } from '../../helpers/accounts.js';
import { ManualClock } from '../../helpers/clock.js';
import { bootGateway, callProtected, errorOf, issueTokens, refreshGrant, type TestGateway, type TokenResponse } from '../../helpers/gateway.js';

const HOUR = 3_600_000;

describe('POST /oauth2/v1/token (refresh grant, SPEC 4.4)', () => {
  let tg: TestGateway;
  let clock: ManualClock;
  const boot = async () => {
    clock = new ManualClock(Date.now());
    tg = await bootGateway({ clock });
  };
  afterEach(() => tg?.close());

  it('exchanges a refresh token for a new pair, with all parameters as headers and no body', async () => {
    await boot();
    const first = await issueTokens(tg.url);
    clock.advance(31 * 60_000);
    const response = await refreshGrant(tg.url, first.refresh_token);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const second = (await response.json()) as TokenResponse;
    expect(Object.keys(second).sort()).toEqual(['access_token', 'expires_in', 'issued_at', 'refresh_token', 'token_type']);
    expect(second.expires_in).toBe('1800');
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(second.access_token)).toMatchObject({ sub: USER.username, client_id: APP.client_id, sid: decodeJwt(first.access_token).sid });
    expect((await callProtected(tg.url, first.access_token)).status).toBe(401);
    expect((await callProtected(tg.url, second.access_token)).status).toBe(200);
  });

  it('refuses a replayed refresh token and revokes everything issued from its grant', async () => {
    await boot();
    const first = await issueTokens(tg.url);
    const second = (await (await refreshGrant(tg.url, first.refresh_token)).json()) as TokenResponse;
    const replay = await errorOf(await refreshGrant(tg.url, first.refresh_token));
    expect(replay).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN', body: { error: 'invalid_grant' } });
    // The thief or the victim holds `second`: both are cut off until they log in again.
    expect((await callProtected(tg.url, second.access_token)).status).toBe(401);
    expect(await errorOf(await refreshGrant(tg.url, second.refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
    // Other grants of the same user are untouched.
    const other = await issueTokens(tg.url);
    expect((await callProtected(tg.url, other.access_token)).status).toBe(200);
  });

  it('lets only one of two concurrent exchanges of the same token win', async () => {
    await boot();
    const { refresh_token } = await issueTokens(tg.url);
    const statuses = (await Promise.all([refreshGrant(tg.url, refresh_token), refreshGrant(tg.url, refresh_token)])).map((r) => r.status);
    expect(statuses.sort()).toEqual([200, 400]);
  });

  it("refuses another client's refresh token without burning it", async () => {
    await boot();
    const { refresh_token } = await issueTokens(tg.url);
    expect(await errorOf(await refreshGrant(tg.url, refresh_token, OTHER_APP))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
    expect((await refreshGrant(tg.url, refresh_token)).status).toBe(200);
  });

  it('refuses a refresh token after its 24-hour lifetime', async () => {
    await boot();
    const { refresh_token } = await issueTokens(tg.url);
    clock.advance(24 * HOUR);
    expect(await errorOf(await refreshGrant(tg.url, refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
  });

  it('gives each rotated token its own 24 hours', async () => {
    await boot();
    const first = await issueTokens(tg.url);
    clock.advance(23 * HOUR);
    const second = (await (await refreshGrant(tg.url, first.refresh_token)).json()) as TokenResponse;
    clock.advance(23 * HOUR);
    expect((await refreshGrant(tg.url, second.refresh_token)).status).toBe(200);
  });

  it.each([
    ['refresh_token header missing', { refresh_token: undefined }, 400, 'REFRESH_TOKEN_REQUIRED'],
    ['unknown refresh token', { refresh_token: 'A'.repeat(43) }, 400, 'INVALID_REFRESH_TOKEN'],
    ['client credentials missing', { client_id: '' }, 400, 'CLIENT_CREDENTIALS_REQUIRED'],
    ['wrong client secret', { client_secret: 'wrong' }, 401, 'INVALID_CLIENT_CREDENTIALS'],
    ['locked client', { ...SUSPENDED_APP }, 401, 'CLIENT_ACCOUNT_INVALID_STATE'],
  ])('%s -> %i %s', async (_case, override: Record<string, string | undefined>, status, errorCode) => {
    await boot();
    const { refresh_token } = await issueTokens(tg.url);
    const merged = { 'content-type': 'application/json', grant_type: 'refresh_token', refresh_token, ...APP, ...override };
    const headers = Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const response = await fetch(`${tg.url}/oauth2/v1/token`, { method: 'POST', headers });
    expect(await errorOf(response)).toMatchObject({ status, errorCode });
  });

  it('requires application/json like the password grant (SPEC 4.4)', async () => {
    await boot();
    const { refresh_token } = await issueTokens(tg.url);
    const response = await fetch(`${tg.url}/oauth2/v1/token`, { method: 'POST', headers: { grant_type: 'refresh_token', refresh_token, ...APP } });
    expect(await errorOf(response)).toMatchObject({ status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
  });
});
