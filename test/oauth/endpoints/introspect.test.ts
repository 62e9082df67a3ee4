import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, SUSPENDED_APP } from '../../helpers/accounts.js';
import { basicAuth, FORM_TYPE, postForm, type FormFields } from '../../helpers/forms.js';
import { bootGateway, errorOf, issueTokens, type TestGateway } from '../../helpers/gateway.js';

const INTROSPECT = '/oauth2/v1/introspect';

/**
 * POST /oauth2/v1/introspect (RFC 7662): the request's shapes and the error
 * rows. Who learns what about which token: test/oauth/introspection.test.ts.
 */
describe('POST /oauth2/v1/introspect (RFC 7662)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    // Forms are off for the token endpoints: introspection reads RFC 7662's form all the same.
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  it.each<[string, FormFields, Record<string, string>]>([
    ['a form with client_secret_basic', {}, basicAuth(APP.client_id, APP.client_secret)],
    ['a form with client_secret_post', { ...APP }, {}],
    ['a form with a token_type_hint', { token_type_hint: 'refresh_token' }, basicAuth(APP.client_id, APP.client_secret)],
  ])('answers %s with RFC 7662 JSON, never cached', async (_how, fields, headers) => {
    const { access_token } = await issueTokens(tg.url);
    const response = await postForm(tg.url, INTROSPECT, { token: access_token, ...fields }, headers);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toMatchObject({ active: true, token_type: 'Bearer', client_id: APP.client_id });
  });

  it("answers the spec's style: client credentials and token as headers, no body", async () => {
    const { access_token } = await issueTokens(tg.url);
    const response = await fetch(`${tg.url}${INTROSPECT}`, { method: 'POST', headers: { ...APP, token: access_token } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ active: true });
  });

  it('answers JSON even when Accept prefers XML (RFC 7662 2.2 defines JSON only)', async () => {
    const response = await fetch(`${tg.url}${INTROSPECT}`, { method: 'POST', headers: { ...APP, token: 'x', accept: 'application/xml' } });
    expect(await response.json()).toEqual({ active: false });
  });

  const basicApp = basicAuth(APP.client_id, APP.client_secret);
  it.each<[string, FormFields | string, Record<string, string>, number, string]>([
    ['no token', {}, basicApp, 400, 'TOKEN_REQUIRED'],
    ['a blank token', { token: '' }, basicApp, 400, 'TOKEN_REQUIRED'],
    ['token sent twice', { token: ['a', 'b'] }, basicApp, 400, 'MALFORMED_REQUEST'],
    ['token in a header and the form disagreeing', { token: 'a' }, { ...basicApp, token: 'b' }, 400, 'MALFORMED_REQUEST'],
    ['no client credentials', { token: 'a' }, {}, 400, 'CLIENT_CREDENTIALS_REQUIRED'],
    ['client credentials in two places, disagreeing', { token: 'a', client_id: 'app-two' }, basicApp, 400, 'CLIENT_CREDENTIALS_CONFLICT'],
    ['a wrong client secret', { token: 'a', client_id: APP.client_id, client_secret: 'nope' }, {}, 401, 'INVALID_CLIENT_CREDENTIALS'],
    ['an unknown client', { token: 'a' }, basicAuth('nobody', 'nope'), 401, 'INVALID_CLIENT_CREDENTIALS'],
    ['a suspended app', { token: 'a', ...SUSPENDED_APP }, {}, 401, 'CLIENT_ACCOUNT_INVALID_STATE'],
    ['a body that is neither a form nor JSON', 'token=a', { ...basicApp, 'content-type': 'text/plain' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a form in another charset', { token: 'a' }, { ...basicApp, 'content-type': `${FORM_TYPE}; charset=iso-8859-1` }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a form with Content-Encoding: gzip', { token: 'a' }, { ...basicApp, 'content-encoding': 'gzip' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a JSON body with Content-Encoding: gzip', '{}', { ...basicApp, token: 'a', 'content-type': 'application/json', 'content-encoding': 'gzip' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('refuses %s: %i %s, with RFC 6749 fields', async (_case, fields, headers, status, errorCode) => {
    const result = await errorOf(await postForm(tg.url, INTROSPECT, fields, headers));
    expect({ status: result.status, errorCode: result.errorCode }).toEqual({ status, errorCode });
    expect(result.body.error).toBeTruthy();
    expect(result.body.error_description).toBe(result.body.errors[0]?.message);
  });

  it('challenges a failed HTTP Basic authentication (RFC 7662 2.1, RFC 6749 5.2)', async () => {
    const response = await postForm(tg.url, INTROSPECT, { token: 'a' }, basicAuth(APP.client_id, 'nope'));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
  });

  it('answers other methods with 405', async () => {
    const response = await fetch(`${tg.url}${INTROSPECT}`, { headers: { ...APP, token: 'x' } });
    expect(await errorOf(response)).toMatchObject({ status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('POST /oauth2/v1/introspect under policies', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway({
      config: { policies: { endpoints: { [INTROSPECT]: ['per-client', 'guard'] } } },
      policies: {
        limits: {
          policies: [
            { name: 'per-client', kind: 'spike-arrest', rate: '1pm', identifier: 'client_id' },
            { name: 'guard', kind: 'regex-protection', apply_to: { path: false, query: false } },
          ],
        },
      },
    });
  });
  afterAll(() => tg.close());

  it('is rate-limited per client named in the form, like the other endpoints', async () => {
    expect((await postForm(tg.url, INTROSPECT, { token: 'a', ...APP })).status).toBe(200);
    expect(await errorOf(await postForm(tg.url, INTROSPECT, { token: 'a' }, basicAuth(APP.client_id, APP.client_secret)))).toMatchObject({ status: 401, errorCode: 'SPIKE_ARREST' });
  });

  it('has its form values tested by regex-protection', async () => {
    expect(await errorOf(await postForm(tg.url, INTROSPECT, { token: '<script>alert(1)</script>' }))).toMatchObject({ status: 401, errorCode: 'REGEX_THREAT' });
  });
});
