import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, errorOf, expectOAuthError, passwordGrant, type TestGateway, callProtected, type TokenResponse } from '../../helpers/gateway.js';
import { decodeJwt } from 'jose';
import { gzipSync } from 'node:zlib';
import { APP, OTHER_APP, SUSPENDED_APP, SUSPENDED_USER, USER } from '../../helpers/accounts.js';
import { FORM_TYPE, basicAuth, formText, postForm, type FormFields } from '../../helpers/forms.js';

/** The endpoint itself, whatever the grant: methods, media types, the grant_type switch, XML. */
describe('POST /oauth2/v1/token (SPEC 4.3, 4.4)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

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

  // SPEC section 7 rows of the endpoint itself.
  const ROWS: Array<[string, Record<string, unknown>, Record<string, string>, number, string, string, string]> = [
    ['unsupported grant_type header', {}, { grant_type: 'client_credentials' }, 400, 'UNSUPPORTED_GRANT_TYPE', 'unsupported_grant_type', "The 'grant_type' must be 'password' or 'refresh_token'"],
  ];

  it.each(ROWS)('%s -> %i %s', async (_case, body, headers, status, errorCode, oauthError, message) => {
    await expectOAuthError(await passwordGrant(tg.url, body, headers), { status, errorCode, oauthError, message });
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

  it.each<[string, string, (text: string) => Uint8Array | string]>([
    ['gzip, really compressed', 'gzip', (text) => gzipSync(text)],
    ['gzip, but sent plain', 'gzip', (text) => text],
    ['an unknown coding', 'x-custom', (text) => text],
  ])('answers a JSON body with Content-Encoding %s with 415 and Accept-Encoding: identity (nothing is inflated)', async (_case, coding, encode) => {
    const body = encode(JSON.stringify({ username: USER.username, password: USER.password, ...APP }));
    const response = await fetch(`${tg.url}/oauth2/v1/token`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': coding }, body });
    const { status, errorCode, body: envelope } = await errorOf(response);
    expect({ status, errorCode, message: envelope.errors[0]!.message }).toEqual({ status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type header is unsupported' });
    expect(response.headers.get('accept-encoding')).toBe('identity');
    expect(tg.logs.find((line) => line.requestId === envelope.requestId)?.detail).toBe(`Content-Encoding ${coding}: the token service reads only unencoded bodies`);
  });

  it('serves a JSON body labelled Content-Encoding: identity', async () => {
    expect((await passwordGrant(tg.url, {}, { 'content-encoding': 'identity' })).status).toBe(200);
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

const TOKEN = '/oauth2/v1/token';
const passwordForm = (over: FormFields = {}): FormFields => ({ grant_type: 'password', username: USER.username, password: USER.password, ...over });
const postCredentials: FormFields = { client_id: APP.client_id, client_secret: APP.client_secret };

async function refused(response: Response): Promise<{ status: number; errorCode: string | undefined }> {
  const { status, errorCode, body } = await errorOf(response);
  // RFC 6749 5.2 fields on every error of the token endpoint, whatever the request's format.
  expect(body.error).toMatch(/^[a-z_]+$/);
  expect(body.error_description).toBe(body.errors[0]?.message);
  return { status, errorCode };
}

/**
 * RFC 6749 form requests on the token endpoint (oauth.form_encoded,
 * apps[].form_encoded): the same token response and the same error rows as
 * the spec's JSON requests, in the same order of blame.
 */
describe('POST /oauth2/v1/token with forms switched on (oauth.form_encoded: true)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    // app-two keeps to the spec's format: its own form_encoded: false beats the gateway-wide true.
    tg = await bootGateway({ config: { oauth: { form_encoded: true }, limits: { oauth_body_size: '1kb' } }, appSettings: { [OTHER_APP.client_id]: { form_encoded: false } } });
  });
  afterAll(() => tg.close());

  it.each([
    ['client_secret_post (RFC 6749 2.3.1)', passwordForm(postCredentials), {}],
    ['client_secret_basic', passwordForm(), basicAuth(APP.client_id, APP.client_secret)],
    ["the spec's client_id / client_secret headers", passwordForm(), { ...APP }],
    ['no grant_type: the password grant, as the spec reads a request without one', passwordForm({ ...postCredentials, grant_type: undefined }), {}],
    ['a blank scope: nothing asked, nothing to refuse', passwordForm({ ...postCredentials, scope: '' }), {}],
    ['the grant_type header agreeing with the form', passwordForm(postCredentials), { grant_type: 'password' }],
  ])('issues the SPEC 2.1 token response to a password grant with %s', async (_how, fields, headers) => {
    const response = await postForm(tg.url, TOKEN, fields, headers);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as TokenResponse;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'issued_at', 'refresh_token', 'token_type']);
    expect(decodeJwt(body.access_token)).toMatchObject({ sub: USER.username, client_id: APP.client_id });
    expect((await callProtected(tg.url, body.access_token)).status).toBe(200);
  });

  it('accepts a charset parameter on the form media type', async () => {
    const response = await postForm(tg.url, TOKEN, passwordForm(postCredentials), { 'content-type': `${FORM_TYPE}; charset=UTF-8` });
    expect(response.status).toBe(200);
  });

  it('refreshes with a form (RFC 6749 6), rotating the refresh token as the spec grant does', async () => {
    const first = (await (await postForm(tg.url, TOKEN, passwordForm(postCredentials))).json()) as TokenResponse;
    const refreshed = await postForm(tg.url, TOKEN, { grant_type: 'refresh_token', refresh_token: first.refresh_token }, basicAuth(APP.client_id, APP.client_secret));
    expect(refreshed.status).toBe(200);
    const second = (await refreshed.json()) as TokenResponse;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    // A retry in either format gets the same successor; once the successor is used, the old token is used up in both.
    const retry = await postForm(tg.url, TOKEN, { grant_type: 'refresh_token', refresh_token: first.refresh_token, ...postCredentials });
    expect(((await retry.json()) as TokenResponse).refresh_token).toBe(second.refresh_token);
    expect((await postForm(tg.url, TOKEN, { grant_type: 'refresh_token', refresh_token: second.refresh_token, ...postCredentials })).status).toBe(200);
    const replay = await postForm(tg.url, TOKEN, { grant_type: 'refresh_token', refresh_token: first.refresh_token, ...postCredentials });
    expect(await refused(replay)).toEqual({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
  });

  it("mixes the spec's refresh_token header with a form's grant_type", async () => {
    const { refresh_token } = (await (await passwordGrant(tg.url)).json()) as TokenResponse;
    const response = await postForm(tg.url, TOKEN, { grant_type: 'refresh_token', ...postCredentials }, { refresh_token });
    expect(response.status).toBe(200);
  });

  it('still serves the spec format unchanged, also to the app kept to it', async () => {
    expect((await passwordGrant(tg.url)).status).toBe(200);
    expect((await passwordGrant(tg.url, OTHER_APP)).status).toBe(200);
  });

  const basicApp = basicAuth(APP.client_id, APP.client_secret);
  it.each<[string, FormFields | string, Record<string, string>, number, string]>([
    ['a parameter sent twice (RFC 6749 3.1)', passwordForm({ ...postCredentials, username: [USER.username, 'bob'] }), {}, 400, 'MALFORMED_REQUEST'],
    ['client_id sent twice', passwordForm({ client_id: [APP.client_id, APP.client_id], client_secret: APP.client_secret }), {}, 400, 'MALFORMED_REQUEST'],
    ['grant_type in the header and the form disagreeing', passwordForm(postCredentials), { grant_type: 'refresh_token' }, 400, 'MALFORMED_REQUEST'],
    ['an unsupported grant', passwordForm({ ...postCredentials, grant_type: 'client_credentials' }), {}, 400, 'UNSUPPORTED_GRANT_TYPE'],
    ['no client credentials', passwordForm(), {}, 400, 'CLIENT_CREDENTIALS_REQUIRED'],
    ['a form secret that disagrees with HTTP Basic', passwordForm(postCredentials), basicAuth(APP.client_id, 'another-secret'), 400, 'CLIENT_CREDENTIALS_CONFLICT'],
    ['no password', passwordForm({ ...postCredentials, password: undefined }), {}, 400, 'USER_CREDENTIALS_REQUIRED'],
    ['a blank username', passwordForm({ ...postCredentials, username: ' ' }), {}, 400, 'USER_CREDENTIALS_REQUIRED'],
    ['a refresh grant without refresh_token', { grant_type: 'refresh_token' }, basicApp, 400, 'REFRESH_TOKEN_REQUIRED'],
    ['refresh_token in the header and the form disagreeing', { grant_type: 'refresh_token', refresh_token: 'a' }, { ...basicApp, refresh_token: 'b' }, 400, 'MALFORMED_REQUEST'],
    ['a scope (none is defined)', passwordForm({ ...postCredentials, scope: 'openid' }), {}, 400, 'INVALID_SCOPE'],
    ['a scope on a refresh grant', { grant_type: 'refresh_token', refresh_token: 'x', scope: 'read' }, basicApp, 400, 'INVALID_SCOPE'],
    ['a wrong client secret', passwordForm({ ...postCredentials, client_secret: 'nope' }), {}, 401, 'INVALID_CLIENT_CREDENTIALS'],
    ['an unknown client', passwordForm({ client_id: 'nobody', client_secret: 'nope' }), {}, 401, 'INVALID_CLIENT_CREDENTIALS'],
    ['a suspended app', passwordForm({ ...SUSPENDED_APP }), {}, 401, 'CLIENT_ACCOUNT_INVALID_STATE'],
    ['a wrong password', passwordForm({ ...postCredentials, password: 'nope' }), {}, 401, 'INVALID_USER_CREDENTIALS'],
    ['a suspended user', passwordForm({ ...postCredentials, ...SUSPENDED_USER }), {}, 401, 'USER_ACCOUNT_INVALID_STATE'],
    ['an unknown refresh token', { grant_type: 'refresh_token', refresh_token: `${'A'.repeat(22)}.${'B'.repeat(43)}` }, basicApp, 400, 'INVALID_REFRESH_TOKEN'],
    ['an app limited to the spec format (apps[].form_encoded: false)', passwordForm({ ...OTHER_APP }), {}, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['that app by HTTP Basic', passwordForm(), basicAuth(OTHER_APP.client_id, OTHER_APP.client_secret), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['that app named beside an allowed one (and repeated)', passwordForm({ client_id: [APP.client_id, OTHER_APP.client_id] }), {}, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a form in another charset', passwordForm(postCredentials), { 'content-type': `${FORM_TYPE}; charset=iso-8859-1` }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a form over limits.oauth_body_size', passwordForm({ ...postCredentials, padding: 'x'.repeat(2_000) }), {}, 413, 'PAYLOAD_TOO_LARGE'],
    ['multipart/form-data', 'x', { 'content-type': 'multipart/form-data; boundary=x' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a form with Content-Encoding: gzip', passwordForm(postCredentials), { 'content-encoding': 'gzip' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('refuses %s: %i %s', async (_case, fields, headers, status, errorCode) => {
    expect(await refused(await postForm(tg.url, TOKEN, fields, headers))).toEqual({ status, errorCode });
  });

  it('answers a refused form in XML when Accept asks for it', async () => {
    const response = await postForm(tg.url, TOKEN, passwordForm(), { accept: 'application/xml' });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('<errorCode>CLIENT_CREDENTIALS_REQUIRED</errorCode>');
  });

  it('sends a Basic challenge when Basic credentials are wrong (RFC 6749 5.2)', async () => {
    const response = await postForm(tg.url, TOKEN, passwordForm(), basicAuth(APP.client_id, 'nope'));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
  });
});

describe('POST /oauth2/v1/token with forms off gateway-wide, on for one app', () => {
  let tg: TestGateway;
  let closed: TestGateway;
  beforeAll(async () => {
    [tg, closed] = await Promise.all([bootGateway({ appSettings: { [OTHER_APP.client_id]: { form_encoded: true } } }), bootGateway()]);
  });
  afterAll(async () => {
    await Promise.all([tg.close(), closed.close()]);
  });

  it('serves the app that may use forms, by client_secret_post or client_secret_basic', async () => {
    expect((await postForm(tg.url, TOKEN, passwordForm({ ...OTHER_APP }))).status).toBe(200);
    expect((await postForm(tg.url, TOKEN, passwordForm(), basicAuth(OTHER_APP.client_id, OTHER_APP.client_secret))).status).toBe(200);
  });

  it.each<[string, FormFields, Record<string, string>]>([
    ['an app left to the gateway-wide value', passwordForm({ ...APP }), {}],
    ['an app left to it, by HTTP Basic', passwordForm(), basicAuth(APP.client_id, APP.client_secret)],
    ['an unknown client', passwordForm({ client_id: 'nobody', client_secret: 'x' }), {}],
    ['a request naming no client', passwordForm(), {}],
    ['the allowed app in the form and another one in Basic', passwordForm({ ...OTHER_APP }), basicAuth(APP.client_id, APP.client_secret)],
    ['the allowed app with a parameter repeated: 415 comes first', passwordForm({ ...OTHER_APP, username: ['a', 'b'] }), { client_id: APP.client_id }],
  ])('answers %s with the spec 415, as with the switch off', async (_case, fields, headers) => {
    expect(await refused(await postForm(tg.url, TOKEN, fields, headers))).toEqual({ status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it("with forms off everywhere, answers every form exactly as before: the spec's 415 envelope", async () => {
    const response = await postForm(closed.url, TOKEN, formText(passwordForm(postCredentials)), basicAuth(APP.client_id, APP.client_secret));
    const json = await passwordGrant(closed.url, {}, { 'content-type': 'text/plain' });
    const [form, plain] = [await response.json(), await json.json()] as Array<Record<string, unknown>>;
    expect(response.status).toBe(415);
    // The same envelope as any other unsupported media type, request id aside.
    expect({ ...form, requestId: undefined }).toEqual({ ...plain, requestId: undefined });
    expect(form).toMatchObject({ errors: [{ errorCode: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type header is unsupported' }], error: 'invalid_request' });
  });
});

describe('POST /oauth2/v1/token: forms meet the same protections as JSON', () => {
  let guarded: TestGateway;
  let throttled: TestGateway;
  beforeAll(async () => {
    [guarded, throttled] = await Promise.all([
      bootGateway({
        config: { oauth: { form_encoded: true }, policies: { endpoints: { [TOKEN]: ['token-guard', 'one-per-user'] } } },
        policies: {
          guards: {
            policies: [
              { name: 'token-guard', kind: 'regex-protection', apply_to: { path: false, query: false } },
              { name: 'one-per-user', kind: 'spike-arrest', rate: '1pm', identifier: 'user' },
            ],
          },
        },
      }),
      bootGateway({ config: { oauth: { form_encoded: true }, brute_force: { max_failures_per_username: 2 } } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([guarded.close(), throttled.close()]);
  });

  it('refuses an injection in a form value (regex-protection)', async () => {
    const response = await postForm(guarded.url, TOKEN, passwordForm({ ...postCredentials, password: "x' or 1=1 --" }));
    expect(await refused(response)).toEqual({ status: 401, errorCode: 'REGEX_THREAT' });
  });

  it('counts a form by its username, as the same JSON request is counted (spike-arrest per user)', async () => {
    const bob = { username: 'bob', password: 'bob-password-1' };
    expect((await postForm(guarded.url, TOKEN, passwordForm({ ...postCredentials, ...bob }))).status).toBe(200);
    expect(await refused(await passwordGrant(guarded.url, bob))).toEqual({ status: 401, errorCode: 'SPIKE_ARREST' });
    expect(await refused(await postForm(guarded.url, TOKEN, passwordForm({ ...postCredentials, ...bob })))).toEqual({ status: 401, errorCode: 'SPIKE_ARREST' });
  });

  it('counts failed passwords in forms and JSON together (brute_force)', async () => {
    // Two wrong passwords, one each way, reach the threshold of 2; the right password is then refused unverified, both ways.
    await postForm(throttled.url, TOKEN, passwordForm({ ...postCredentials, password: 'guess-1' }));
    await passwordGrant(throttled.url, { password: 'guess-2' });
    expect(await refused(await postForm(throttled.url, TOKEN, passwordForm(postCredentials)))).toEqual({ status: 401, errorCode: 'LOGIN_LOCKED' });
    expect(await refused(await passwordGrant(throttled.url))).toEqual({ status: 401, errorCode: 'LOGIN_LOCKED' });
  });
});
