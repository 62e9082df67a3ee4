import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { APP, SUSPENDED_USER, USER } from '../../helpers/accounts.js';
import { bootGateway, expectOAuthError, passwordGrant, type TestGateway, type TokenResponse } from '../../helpers/gateway.js';

describe('POST /oauth2/v1/token (password grant, SPEC 4.3)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  it('issues the SPEC 2.1 token response, never cached', async () => {
    const before = Date.now();
    const response = await passwordGrant(tg.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as TokenResponse;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'issued_at', 'refresh_token', 'token_type']);
    expect(body.issued_at).toMatch(/^\d{13}$/);
    expect(Number(body.issued_at)).toBeGreaterThanOrEqual(before);
    expect(body.expires_in).toBe('1800');
    expect(body.token_type).toBe('Bearer');
    expect(body.refresh_token).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
  });

  it('signs an RFC 9068 access token for the user and client', async () => {
    const body = (await (await passwordGrant(tg.url)).json()) as TokenResponse;
    const header = decodeProtectedHeader(body.access_token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(header.kid).toBeTruthy();
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({ iss: tg.gateway.context.issuer, aud: tg.gateway.context.issuer, sub: USER.username, client_id: APP.client_id });
    expect(claims.exp! - claims.iat!).toBe(1800);
    expect(claims.jti).toBeTruthy();
  });

  it('accepts grant_type: password as a header', async () => {
    expect((await passwordGrant(tg.url, {}, { grant_type: 'password' })).status).toBe(200);
  });

  // SPEC section 7 rows of the user's credentials, in the envelope, with RFC 6749 fields.
  const ROWS: Array<[string, Record<string, unknown>, Record<string, string>, number, string, string, string]> = [
    ['username missing', { username: undefined }, {}, 400, 'USER_CREDENTIALS_REQUIRED', 'invalid_request', "The 'username' and 'password' attributes are required"],
    ['password blank', { password: '   ' }, {}, 400, 'USER_CREDENTIALS_REQUIRED', 'invalid_request', "The 'username' and 'password' attributes are required"],
    ['username not a string', { username: 42 }, {}, 400, 'USER_CREDENTIALS_REQUIRED', 'invalid_request', "The 'username' and 'password' attributes are required"],
    ['wrong password', { password: 'wrong' }, {}, 401, 'INVALID_USER_CREDENTIALS', 'invalid_grant', 'Access is denied due to invalid username or password'],
    ['unknown user', { username: 'nobody' }, {}, 401, 'INVALID_USER_CREDENTIALS', 'invalid_grant', 'Access is denied due to invalid username or password'],
    ['suspended user', { ...SUSPENDED_USER }, {}, 401, 'USER_ACCOUNT_INVALID_STATE', 'invalid_grant', 'Your account is in invalid state. For further assistance, please contact API support'],
    ['suspended user, wrong password', { username: SUSPENDED_USER.username, password: 'wrong' }, {}, 401, 'INVALID_USER_CREDENTIALS', 'invalid_grant', 'Access is denied due to invalid username or password'],
  ];

  it.each(ROWS)('%s -> %i %s', async (_case, body, headers, status, errorCode, oauthError, message) => {
    await expectOAuthError(await passwordGrant(tg.url, body, headers), { status, errorCode, oauthError, message });
  });

});
