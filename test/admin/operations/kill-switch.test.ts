import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminCall } from '../../helpers/admin.js';
import { APP, OTHER_APP, OTHER_USER, USER } from '../../helpers/accounts.js';
import { bootGateway, callProtected, errorOf, issueTokens, refreshGrant, type TestGateway, type TokenResponse } from '../../helpers/gateway.js';
import { scrape } from '../../helpers/metrics.js';

/**
 * POST /admin/v1/revocations, the kill switch, against a real gateway's
 * admin listener: every token of the user (or client) refused, everyone
 * else's untouched.
 */

let tg: TestGateway;
beforeEach(async () => {
  tg = await bootGateway();
});
afterEach(() => tg.close());

const killSwitch = (input: Record<string, unknown> | string) => adminCall(tg.gateway.adminUrl, 'POST', '/admin/v1/revocations', input);
const login = (user: { username: string; password: string }, app: { client_id: string; client_secret: string }) =>
  issueTokens(tg.url, { username: user.username, password: user.password, ...app });

async function expectRefused(tokens: TokenResponse, app: { client_id: string; client_secret: string }): Promise<void> {
  expect((await callProtected(tg.url, tokens.access_token)).status).toBe(401);
  expect(await errorOf(await refreshGrant(tg.url, tokens.refresh_token, app))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
}

async function expectWorking(tokens: TokenResponse, app: { client_id: string; client_secret: string }): Promise<void> {
  expect((await callProtected(tg.url, tokens.access_token)).status).toBe(200);
  expect((await refreshGrant(tg.url, tokens.refresh_token, app)).status).toBe(200);
}

describe('POST /admin/v1/revocations (the kill switch)', () => {
  it("refuses every access and refresh token of a user, over several grants and clients; another user's keep working", async () => {
    const aliceOne = await login(USER, APP);
    const aliceTwo = await login(USER, APP);
    const aliceOther = await login(USER, OTHER_APP);
    const bob = await login(OTHER_USER, APP);
    // Verified once, so the verified-token cache holds it: revocation must still be checked.
    expect((await callProtected(tg.url, aliceOne.access_token)).status).toBe(200);

    const answer = await killSwitch({ username: USER.username });

    expect(answer).toMatchObject({ status: 200, body: { revoked: 3, username: USER.username, account: 'active' } });
    await expectRefused(aliceOne, APP);
    await expectRefused(aliceTwo, APP);
    await expectRefused(aliceOther, OTHER_APP);
    await expectWorking(bob, APP);
  });

  it("refuses every token of a client, whoever logged in with it; the user's tokens with other clients keep working", async () => {
    const aliceOne = await login(USER, APP);
    const bobOne = await login(OTHER_USER, APP);
    const aliceOther = await login(USER, OTHER_APP);

    const answer = await killSwitch({ client_id: APP.client_id });

    expect(answer).toMatchObject({ status: 200, body: { revoked: 2, client_id: APP.client_id, account: 'active' } });
    await expectRefused(aliceOne, APP);
    await expectRefused(bobOne, APP);
    await expectWorking(aliceOther, OTHER_APP);
  });

  it('counts each grant it ends in token_gateway_tokens_revoked_total, beside the revocation endpoint', async () => {
    await login(USER, APP);
    await login(USER, OTHER_APP);
    const revoked = { token_type: 'refresh_token', reason: 'kill_switch' };
    expect((await scrape(tg.gateway.adminUrl!)).value('token_gateway_tokens_revoked_total', revoked)).toBe(0);
    expect(await killSwitch({ username: USER.username })).toMatchObject({ status: 200, body: { revoked: 2 } });
    const after = await scrape(tg.gateway.adminUrl!);
    expect(after.value('token_gateway_tokens_revoked_total', revoked)).toBe(2);
    expect(after.value('token_gateway_tokens_revoked_total', { reason: 'revocation_endpoint' })).toBe(0);
  });

  it('says that an active account can log in again, and how to disable it first', async () => {
    const { body } = await killSwitch({ username: USER.username });
    expect(body.note).toContain('still active');
    expect(body.note).toContain(`token-gateway users disable ${USER.username}`);
    const { body: app } = await killSwitch({ client_id: APP.client_id });
    expect(app.note).toContain(`token-gateway apps disable ${APP.client_id}`);
    expect(app.note).toContain('new secret');
  });

  it('answers 0 for a user with no active grant, known or not, and says the account is unknown', async () => {
    expect(await killSwitch({ username: 'nobody-here' })).toMatchObject({ status: 200, body: { revoked: 0, account: 'unknown' } });
    expect((await killSwitch({ username: 'nobody-here' })).body.note).not.toContain('still active');
  });

  it('logs one event line naming whose grants and how many, and no token', async () => {
    const tokens = await login(USER, APP);
    await killSwitch({ username: USER.username });
    const events = tg.logs.filter((line) => line.msg === 'admin: every grant revoked');
    expect(events).toEqual([expect.objectContaining({ username: USER.username, revoked: 1 })]);
    const raw = tg.rawLogs.join('');
    expect(raw).not.toContain(tokens.access_token);
    expect(raw).not.toContain(tokens.refresh_token);
  });

  const badInputs: Array<[string, Record<string, unknown> | string, string]> = [
    ['neither field', {}, 'exactly one'],
    ['both fields', { username: USER.username, client_id: APP.client_id }, 'exactly one'],
    ['an empty username', { username: '' }, '"username" must be a non-empty string'],
    ['a blank client id', { client_id: '  ' }, '"client_id" must be a non-empty string'],
    ['a username that is not a string', { username: ['alice'] }, '"username" must be a non-empty string'],
    ['a misspelt field', { user: USER.username }, 'unknown field "user"'],
    ['a body that is not JSON', 'username=alice', 'not JSON'],
    ['a JSON array', '["alice"]', 'must be a JSON object'],
  ];
  for (const [name, input, message] of badInputs) {
    it(`refuses ${name} with 400 and revokes nothing`, async () => {
      const tokens = await login(USER, APP);
      const answer = await killSwitch(input);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain(message);
      expect((await callProtected(tg.url, tokens.access_token)).status).toBe(200);
    });
  }

  it('accepts only POST', async () => {
    const response = await fetch(`${tg.gateway.adminUrl}/admin/v1/revocations`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
