import { afterEach, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { REFRESH_GRACE_RETRIES } from '../../../src/config/defaults.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { accountsYaml, APP, OTHER_APP, SUSPENDED_APP, USER } from '../../helpers/accounts.js';
import { ManualClock } from '../../helpers/clock.js';
import { bootGateway, callProtected, errorOf, issueTokens, refreshGrant, type TestGateway, type TokenResponse } from '../../helpers/gateway.js';
import { scrape } from '../../helpers/metrics.js';

const HOUR = 3_600_000;
const GRACE_MS = 30_000;

const pairOf = async (response: Response): Promise<TokenResponse> => {
  if (response.status !== 200) throw new Error(`refresh grant answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as TokenResponse;
};
const sidOf = (pair: { access_token: string }): unknown => decodeJwt(pair.access_token).sid;

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

  it('refuses a refresh token presented again after the grace window, and revokes everything issued from its grant', async () => {
    await boot();
    const first = await issueTokens(tg.url);
    const second = await pairOf(await refreshGrant(tg.url, first.refresh_token));
    clock.advance(GRACE_MS);
    const replay = await errorOf(await refreshGrant(tg.url, first.refresh_token));
    expect(replay).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN', body: { error: 'invalid_grant' } });
    // The thief or the victim holds `second`: both are cut off until they log in again.
    expect((await callProtected(tg.url, second.access_token)).status).toBe(401);
    expect(await errorOf(await refreshGrant(tg.url, second.refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
    // Other grants of the same user are untouched.
    const other = await issueTokens(tg.url);
    expect((await callProtected(tg.url, other.access_token)).status).toBe(200);
    expect(tg.logs).toContainEqual(expect.objectContaining({ msg: 'refresh token reuse: revoking the grant', reason: 'after_window', grantId: sidOf(first) }));
  });

  describe('a retry within the grace window (tokens.refresh_grace, 30 s by default)', () => {
    it('answers the same refresh token and an access token of the same grant; both access tokens work', async () => {
      await boot();
      const first = await issueTokens(tg.url);
      const lost = await pairOf(await refreshGrant(tg.url, first.refresh_token));
      clock.advance(GRACE_MS - 1);
      const retried = await pairOf(await refreshGrant(tg.url, first.refresh_token));
      expect(retried.refresh_token).toBe(lost.refresh_token);
      expect(decodeJwt(retried.access_token)).toMatchObject({ sid: sidOf(first), sub: USER.username, client_id: APP.client_id });
      expect(decodeJwt(retried.access_token).jti).not.toBe(decodeJwt(lost.access_token).jti);
      for (const pair of [lost, retried]) expect((await callProtected(tg.url, pair.access_token)).status).toBe(200);
      // The successor carries on as the grant's one live token.
      expect((await refreshGrant(tg.url, retried.refresh_token)).status).toBe(200);
    });

    it('answers both of two exchanges of one token at the same moment with the same pair', async () => {
      await boot();
      const { refresh_token } = await issueTokens(tg.url);
      const [a, b] = await Promise.all([refreshGrant(tg.url, refresh_token), refreshGrant(tg.url, refresh_token)]);
      const [pairA, pairB] = [await pairOf(a), await pairOf(b)];
      expect(pairA.refresh_token).toBe(pairB.refresh_token);
      expect(sidOf(pairA)).toBe(sidOf(pairB));
    });

    it('is theft once the successor itself has been used, however soon', async () => {
      await boot();
      const first = await issueTokens(tg.url);
      const second = await pairOf(await refreshGrant(tg.url, first.refresh_token));
      const third = await pairOf(await refreshGrant(tg.url, second.refresh_token));
      expect(await errorOf(await refreshGrant(tg.url, first.refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
      expect((await callProtected(tg.url, third.access_token)).status).toBe(401);
      expect(await errorOf(await refreshGrant(tg.url, third.refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
    });

    it(`answers at most ${REFRESH_GRACE_RETRIES} retries of one rotation; the next presentation is theft`, async () => {
      await boot();
      const first = await issueTokens(tg.url);
      const successor = await pairOf(await refreshGrant(tg.url, first.refresh_token));
      for (let retry = 1; retry <= REFRESH_GRACE_RETRIES; retry++) {
        expect((await pairOf(await refreshGrant(tg.url, first.refresh_token))).refresh_token).toBe(successor.refresh_token);
      }
      expect(await errorOf(await refreshGrant(tg.url, first.refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
      expect((await callProtected(tg.url, successor.access_token)).status).toBe(401);
    });

    it('logs each retry at info with the grant id and counts it, never writing a token', async () => {
      await boot();
      const first = await issueTokens(tg.url);
      const successor = await pairOf(await refreshGrant(tg.url, first.refresh_token));
      await pairOf(await refreshGrant(tg.url, first.refresh_token));
      const retries = tg.logs.filter((line) => line.msg === 'refresh retried within the grace window: the same successor answered');
      expect(retries).toEqual([expect.objectContaining({ level: 30, grantId: sidOf(first), clientId: APP.client_id, retry: 1 })]);
      const scraped = await scrape(tg.gateway.adminUrl!);
      expect(scraped.value('token_gateway_refresh_retries_total', { outcome: 'answered' })).toBe(1);
      const secrets = [first.refresh_token, successor.refresh_token].map((token) => token.split('.')[1]!);
      for (const secret of secrets) expect(tg.rawLogs.join('')).not.toContain(secret);
    });

    it("refuses a suspended user's retries without counting them: once active again, the retry is answered", async () => {
      clock = new ManualClock(Date.now());
      tg = await bootGateway({ clock, watchConfig: false });
      const accounts = join(tg.dir, 'accounts.yaml');
      const setAlice = async (status: 'active' | 'suspended') => {
        const text = (await accountsYaml()).replace(new RegExp(`(username: ${USER.username},.*status: )active`), `$1${status}`);
        await writeFile(accounts, text);
        expect((await tg.gateway.reload('test')).ok).toBe(true);
      };
      const first = await issueTokens(tg.url);
      const successor = await pairOf(await refreshGrant(tg.url, first.refresh_token));
      await setAlice('suspended');
      for (let attempt = 0; attempt <= REFRESH_GRACE_RETRIES; attempt++) {
        expect(await errorOf(await refreshGrant(tg.url, first.refresh_token))).toMatchObject({ status: 401, errorCode: 'USER_ACCOUNT_INVALID_STATE' });
      }
      await setAlice('active');
      expect((await pairOf(await refreshGrant(tg.url, first.refresh_token))).refresh_token).toBe(successor.refresh_token);
      expect(tg.logs.filter((line) => line.msg === 'refresh retried within the grace window: the same successor answered')).toEqual([expect.objectContaining({ retry: 1 })]);
      expect((await callProtected(tg.url, successor.access_token)).status).toBe(200);
    });

    it("still judges a suspended user's replay after the window as theft, revoking the grant", async () => {
      clock = new ManualClock(Date.now());
      tg = await bootGateway({ clock, watchConfig: false });
      const first = await issueTokens(tg.url);
      const successor = await pairOf(await refreshGrant(tg.url, first.refresh_token));
      const text = (await accountsYaml()).replace(new RegExp(`(username: ${USER.username},.*status: )active`), '$1suspended');
      await writeFile(join(tg.dir, 'accounts.yaml'), text);
      expect((await tg.gateway.reload('test')).ok).toBe(true);
      clock.advance(GRACE_MS);
      expect(await errorOf(await refreshGrant(tg.url, first.refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
      expect(tg.logs).toContainEqual(expect.objectContaining({ msg: 'refresh token reuse: revoking the grant', reason: 'after_window' }));
      expect((await callProtected(tg.url, successor.access_token)).status).toBe(401);
    });

    it("refuses another client's presentation of a used token without answering or burning it", async () => {
      await boot();
      const first = await issueTokens(tg.url);
      const successor = await pairOf(await refreshGrant(tg.url, first.refresh_token));
      expect(await errorOf(await refreshGrant(tg.url, first.refresh_token, OTHER_APP))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
      expect((await pairOf(await refreshGrant(tg.url, first.refresh_token))).refresh_token).toBe(successor.refresh_token);
    });
  });

  describe('with refresh_grace: 0s (strictly single use)', () => {
    const strict = async () => {
      clock = new ManualClock(Date.now());
      tg = await bootGateway({ clock, config: { tokens: { refresh_grace: '0s' } } });
    };

    it('treats any second use as theft and revokes the grant', async () => {
      await strict();
      const first = await issueTokens(tg.url);
      const second = await pairOf(await refreshGrant(tg.url, first.refresh_token));
      expect(await errorOf(await refreshGrant(tg.url, first.refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
      expect((await callProtected(tg.url, second.access_token)).status).toBe(401);
    });

    it('lets only one of two concurrent exchanges of the same token win', async () => {
      await strict();
      const { refresh_token } = await issueTokens(tg.url);
      const statuses = (await Promise.all([refreshGrant(tg.url, refresh_token), refreshGrant(tg.url, refresh_token)])).map((r) => r.status);
      expect(statuses.sort()).toEqual([200, 400]);
    });
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
