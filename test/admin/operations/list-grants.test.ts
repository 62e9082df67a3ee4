import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminCall } from '../../helpers/admin.js';
import { APP, OTHER_APP, OTHER_USER, USER } from '../../helpers/accounts.js';
import { ManualClock } from '../../helpers/clock.js';
import { bootGateway, issueTokens, refreshGrant, revoke, type TestGateway, type TokenResponse } from '../../helpers/gateway.js';

/** GET /admin/v1/grants against a real gateway's admin listener, on a frozen clock. */

const DAY = 24 * 3_600_000;
let tg: TestGateway;
let clock: ManualClock;
beforeEach(async () => {
  clock = new ManualClock();
  tg = await bootGateway({ clock });
});
afterEach(() => tg.close());

const grants = (query: Record<string, string> = {}) => adminCall(tg.gateway.adminUrl, 'GET', '/admin/v1/grants', query);
const login = (user: { username: string; password: string }, app: { client_id: string; client_secret: string }) =>
  issueTokens(tg.url, { username: user.username, password: user.password, ...app });
const grantIdOf = (tokens: TokenResponse): string => tokens.refresh_token.split('.')[0]!;
const iso = (ms: number) => new Date(ms).toISOString();

describe('GET /admin/v1/grants', () => {
  it('lists each login with its user, client, login time, last refresh and expiry', async () => {
    const loginAt = clock.now();
    const tokens = await login(USER, APP);
    clock.advance(60_000);
    expect((await refreshGrant(tg.url, tokens.refresh_token)).status).toBe(200);

    expect(await grants()).toEqual({
      status: 200,
      body: {
        total: 1,
        limit: 1000,
        truncated: false,
        grants: [
          {
            grantId: grantIdOf(tokens),
            username: USER.username,
            clientId: APP.client_id,
            issuedAt: iso(loginAt),
            lastRefreshedAt: iso(loginAt + 60_000),
            expiresAt: iso(loginAt + 60_000 + DAY),
          },
        ],
      },
    });
  });

  it('shows a login never refreshed with lastRefreshedAt null, and never a token or its hash', async () => {
    const tokens = await login(USER, APP);
    const { body } = await grants();
    expect(body.grants[0].lastRefreshedAt).toBeNull();
    const text = JSON.stringify(body);
    expect(text).not.toContain(tokens.refresh_token);
    expect(text).not.toContain(tokens.refresh_token.split('.')[1]);
    expect(text).not.toContain(tokens.access_token);
  });

  it('filters by username, by client_id, and by both', async () => {
    await login(USER, APP);
    await login(USER, OTHER_APP);
    await login(OTHER_USER, APP);
    const pairs = async (query: Record<string, string>) =>
      ((await grants(query)).body.grants as Array<{ username: string; clientId: string }>).map((grant) => `${grant.username}/${grant.clientId}`).sort();
    expect(await pairs({})).toEqual(['alice/app-one', 'alice/app-two', 'bob/app-one']);
    expect(await pairs({ username: USER.username })).toEqual(['alice/app-one', 'alice/app-two']);
    expect(await pairs({ client_id: APP.client_id })).toEqual(['alice/app-one', 'bob/app-one']);
    expect(await pairs({ username: USER.username, client_id: OTHER_APP.client_id })).toEqual(['alice/app-two']);
  });

  it('leaves out revoked grants (also one revoked whose tokens are still stored) and expired ones', async () => {
    const ids = async () => (await grants()).body.grants.map((grant: { grantId: string }) => grant.grantId);
    const revoked = await login(USER, APP);
    expect((await revoke(tg.url, revoked.refresh_token)).status).toBe(200);
    const replayed = await login(USER, APP);
    const successor = (await (await refreshGrant(tg.url, replayed.refresh_token)).json()) as { refresh_token: string };
    await refreshGrant(tg.url, successor.refresh_token);
    await refreshGrant(tg.url, replayed.refresh_token); // a replay once its successor is used: the grant is revoked
    const halfRevoked = await login(USER, APP);
    // As if the store had failed between the two steps of revokeGrant: the entry is there, the tokens too.
    await tg.gateway.context.store.revocations.add({ kind: 'grant', id: grantIdOf(halfRevoked), expiresAt: clock.now() + 2 * DAY });
    const plain = await login(USER, APP);
    expect(await ids()).toEqual([grantIdOf(plain)]);

    clock.advance(DAY - 1);
    const live = await login(USER, APP);
    clock.advance(1);
    expect(await ids()).toEqual([grantIdOf(live)]);
  });

  it('keeps the newest `limit` grants, newest first, and tells the total', async () => {
    const logins: TokenResponse[] = [];
    for (let i = 0; i < 4; i++) {
      logins.push(await login(USER, APP));
      clock.advance(1_000);
    }
    const { body } = await grants({ limit: '2' });
    expect(body).toMatchObject({ total: 4, limit: 2, truncated: true });
    expect(body.grants.map((grant: { grantId: string }) => grant.grantId)).toEqual([grantIdOf(logins[3]!), grantIdOf(logins[2]!)]);
  });

  const badQueries: Array<[string, Record<string, string>, string]> = [
    ['a limit of 0', { limit: '0' }, '"limit" must be a whole number from 1 to 10000'],
    ['a limit over the ceiling', { limit: '10001' }, '"limit" must be a whole number'],
    ['a limit that is not a number', { limit: 'all' }, '"limit" must be a whole number'],
    ['an empty username', { username: '' }, '"username" must be a non-empty string'],
    ['an unknown parameter', { user: 'alice' }, 'unknown field "user"'],
  ];
  for (const [name, query, message] of badQueries) {
    it(`refuses ${name} with 400`, async () => {
      const answer = await grants(query);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain(message);
    });
  }

  it('refuses a parameter given twice with 400 naming it, rather than using one of them', async () => {
    await login(USER, APP);
    for (const [path, name] of [
      ['/admin/v1/grants?username=demo-user&username=x', 'username'],
      ['/admin/v1/grants?limit=1&limit=2', 'limit'],
      ['/admin/v1/refusals/recent?limit=1&limit=2', 'limit'],
    ]) {
      const response = await fetch(`${tg.gateway.adminUrl}${path}`);
      expect({ path, status: response.status, body: await response.json() }).toEqual({
        path,
        status: 400,
        body: { error: `query parameter "${name}" given more than once; give each parameter once` },
      });
    }
  });
});
