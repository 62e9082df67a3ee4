import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { APP, OTHER_APP, SUSPENDED_APP, SUSPENDED_USER, USER } from '../../helpers/accounts.js';
import { bootGateway, errorOf, passwordGrant, type TestGateway, type TokenResponse } from '../../helpers/gateway.js';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

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

  it('answers in XML with the same fields when Accept asks for it', async () => {
    const response = await passwordGrant(tg.url, {}, { accept: 'application/xml' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/xml');
    const xml = await response.text();
    for (const field of ['issued_at', 'expires_in', 'token_type', 'access_token', 'refresh_token']) expect(xml).toMatch(new RegExp(`<${field}>[^<]+</${field}>`));
    expect(xml).toContain('<token_type>Bearer</token_type>');
  });

  it('accepts a charset parameter on the content type and grant_type: password', async () => {
    const response = await passwordGrant(tg.url, {}, { 'content-type': 'application/json; charset=utf-8', grant_type: 'password' });
    expect(response.status).toBe(200);
  });

  describe('client credentials in any of the three places', () => {
    const userOnly = { client_id: undefined, client_secret: undefined };
    it.each([
      ['the JSON body', {}, {}],
      ['client_id/client_secret headers', userOnly, { client_id: APP.client_id, client_secret: APP.client_secret }],
      ['HTTP Basic (client_secret_basic)', userOnly, { authorization: basic(APP.client_id, APP.client_secret) }],
      ['body and matching headers', {}, { client_id: APP.client_id, client_secret: APP.client_secret }],
    ])('%s', async (_place, body, headers) => {
      const response = await passwordGrant(tg.url, body, headers as Record<string, string>);
      expect(response.status).toBe(200);
    });

    it.each([
      ['body and headers disagree', {}, { client_id: OTHER_APP.client_id }],
      ['body and Basic disagree', {}, { authorization: basic(APP.client_id, 'other-secret') }],
    ])('refuses %s with 400', async (_case, body, headers) => {
      const { status, errorCode, body: envelope } = await errorOf(await passwordGrant(tg.url, body, headers as Record<string, string>));
      expect({ status, errorCode }).toEqual({ status: 400, errorCode: 'CLIENT_CREDENTIALS_CONFLICT' });
      expect(envelope.error).toBe('invalid_request');
    });

    it('sends a Basic challenge when Basic credentials are wrong (RFC 6749 5.2)', async () => {
      const response = await passwordGrant(tg.url, { client_id: undefined, client_secret: undefined }, { authorization: basic(APP.client_id, 'nope') });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    });
  });

  // SPEC section 7 rows of this endpoint, in the envelope, with RFC 6749 fields.
  const ROWS: Array<[string, Record<string, unknown>, Record<string, string>, number, string, string, string]> = [
    ['client_id missing', { client_id: undefined }, {}, 400, 'CLIENT_CREDENTIALS_REQUIRED', 'invalid_request', "The 'client_id' and 'client_secret' attributes are required"],
    ['client_secret missing', { client_secret: undefined }, {}, 400, 'CLIENT_CREDENTIALS_REQUIRED', 'invalid_request', "The 'client_id' and 'client_secret' attributes are required"],
    ['client_secret blank', { client_secret: '' }, {}, 400, 'CLIENT_CREDENTIALS_REQUIRED', 'invalid_request', "The 'client_id' and 'client_secret' attributes are required"],
    ['client and user both missing', { client_id: undefined, username: undefined }, {}, 400, 'CLIENT_CREDENTIALS_REQUIRED', 'invalid_request', "The 'client_id' and 'client_secret' attributes are required"],
    ['username missing', { username: undefined }, {}, 400, 'USER_CREDENTIALS_REQUIRED', 'invalid_request', "The 'username' and 'password' attributes are required"],
    ['password blank', { password: '   ' }, {}, 400, 'USER_CREDENTIALS_REQUIRED', 'invalid_request', "The 'username' and 'password' attributes are required"],
    ['username not a string', { username: 42 }, {}, 400, 'USER_CREDENTIALS_REQUIRED', 'invalid_request', "The 'username' and 'password' attributes are required"],
    ['wrong password', { password: 'wrong' }, {}, 401, 'INVALID_USER_CREDENTIALS', 'invalid_grant', 'Access is denied due to invalid username or password'],
    ['unknown user', { username: 'nobody' }, {}, 401, 'INVALID_USER_CREDENTIALS', 'invalid_grant', 'Access is denied due to invalid username or password'],
    ['wrong client secret', { client_secret: 'wrong' }, {}, 401, 'INVALID_CLIENT_CREDENTIALS', 'invalid_client', 'Access is denied due to invalid client id or client secret'],
    ['unknown client', { client_id: 'nobody' }, {}, 401, 'INVALID_CLIENT_CREDENTIALS', 'invalid_client', 'Access is denied due to invalid client id or client secret'],
    ['bad client before bad user', { client_secret: 'wrong', password: 'wrong' }, {}, 401, 'INVALID_CLIENT_CREDENTIALS', 'invalid_client', 'Access is denied due to invalid client id or client secret'],
    ['suspended user', { ...SUSPENDED_USER }, {}, 401, 'USER_ACCOUNT_INVALID_STATE', 'invalid_grant', 'Your account is in invalid state. For further assistance, please contact API support'],
    ['suspended user, wrong password', { username: SUSPENDED_USER.username, password: 'wrong' }, {}, 401, 'INVALID_USER_CREDENTIALS', 'invalid_grant', 'Access is denied due to invalid username or password'],
    ['locked app', { ...SUSPENDED_APP }, {}, 401, 'CLIENT_ACCOUNT_INVALID_STATE', 'invalid_client', 'Your account is in invalid state. For further assistance, please contact API support'],
    ['unsupported grant_type header', {}, { grant_type: 'client_credentials' }, 400, 'UNSUPPORTED_GRANT_TYPE', 'unsupported_grant_type', "The 'grant_type' must be 'password' or 'refresh_token'"],
  ];

  it.each(ROWS)('%s -> %i %s', async (_case, body, headers, status, errorCode, oauthError, message) => {
    const { status: got, body: envelope } = await errorOf(await passwordGrant(tg.url, body, headers));
    expect(got).toBe(status);
    expect(envelope).toMatchObject({
      success: false,
      errors: [{ errorCode, errorType: status === 400 ? 'Bad Request' : 'Unauthorized', message }],
      error: oauthError,
      error_description: message,
    });
    expect(envelope.requestId).toBeTruthy();
  });

  it.each(['GET', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405 and Allow: POST', async (method) => {
    const response = await fetch(`${tg.url}/oauth2/v1/token`, { method });
    const { status, errorCode, body } = await errorOf(response);
    expect({ status, errorCode }).toEqual({ status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
    expect(body.errors[0]!.message).toBe('The requested method is not allowed');
    expect(response.headers.get('allow')).toBe('POST');
  });

  it.each([
    ['missing', undefined],
    ['form-encoded', 'application/x-www-form-urlencoded'],
    ['XML', 'application/xml'],
    ['text', 'text/plain'],
  ])('answers a %s Content-Type with 415', async (_case, contentType) => {
    const response = await fetch(`${tg.url}/oauth2/v1/token`, {
      method: 'POST',
      headers: contentType ? { 'content-type': contentType } : {},
      body: contentType ? 'x' : undefined,
    });
    const { status, errorCode, body } = await errorOf(response);
    expect({ status, errorCode }).toEqual({ status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(body.errors[0]!.message).toBe('Content-Type header is unsupported');
  });

  it.each([
    ['invalid JSON', '{"username": '],
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"hello"'],
    ['null', 'null'],
  ])('answers %s with 400, never 500', async (_case, text) => {
    const response = await fetch(`${tg.url}/oauth2/v1/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    expect(await errorOf(response)).toMatchObject({ status: 400, errorCode: 'MALFORMED_JSON_BODY' });
  });

  it('renders errors in XML when the client asked for XML', async () => {
    const response = await passwordGrant(tg.url, { password: 'wrong' }, { accept: 'application/xml' });
    expect(response.status).toBe(401);
    const xml = await response.text();
    expect(xml).toContain('<errorCode>INVALID_USER_CREDENTIALS</errorCode>');
    expect(xml).toContain('<message>Access is denied due to invalid username or password</message>');
  });
});
