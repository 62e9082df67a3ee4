import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, OTHER_APP } from '../../helpers/accounts.js';
import { basicAuth, postForm, type FormFields } from '../../helpers/forms.js';
import { bootGateway, callProtected, errorOf, issueTokens, refreshGrant, revoke, type TestGateway } from '../../helpers/gateway.js';

describe('POST /oauth2/v1/revokeToken (SPEC 4.5, RFC 7009)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  it('revokes an access token: 200, and the token is refused at the edge', async () => {
    const tokens = await issueTokens(tg.url);
    expect((await callProtected(tg.url, tokens.access_token)).status).toBe(200);
    const response = await revoke(tg.url, tokens.access_token);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true });
    const refused = await callProtected(tg.url, tokens.access_token);
    expect(await errorOf(refused)).toMatchObject({ status: 401, errorCode: 'ACCESS_TOKEN_INVALID' });
    // Revoking an access token leaves its refresh token usable.
    expect((await refreshGrant(tg.url, tokens.refresh_token)).status).toBe(200);
  });

  it('revokes a refresh token and every access token issued from the same grant', async () => {
    const tokens = await issueTokens(tg.url);
    // Verified once already (and so remembered by the verified-token cache), yet refused after the revocation.
    expect((await callProtected(tg.url, tokens.access_token)).status).toBe(200);
    expect((await revoke(tg.url, tokens.refresh_token)).status).toBe(200);
    expect((await callProtected(tg.url, tokens.access_token)).status).toBe(401);
    expect(await errorOf(await refreshGrant(tg.url, tokens.refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
  });

  it('refuses a JSON body it would read with a Content-Encoding (415), and ignores one on a body it does not read', async () => {
    const tokens = await issueTokens(tg.url);
    const coded = (contentType: string) =>
      fetch(`${tg.url}/oauth2/v1/revokeToken`, { method: 'POST', headers: { ...APP, token: tokens.access_token, 'content-type': contentType, 'content-encoding': 'gzip' }, body: '{}' });
    const refused = await coded('application/json');
    expect(await errorOf(refused)).toMatchObject({ status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(refused.headers.get('accept-encoding')).toBe('identity');
    expect((await callProtected(tg.url, tokens.access_token)).status).toBe(200);
    // A body the endpoint never reads (SPEC 4.5: the parameters are headers) is drained, coded or not.
    expect((await coded('text/plain')).status).toBe(200);
    expect((await callProtected(tg.url, tokens.access_token)).status).toBe(401);
  });

  it('answers 200 for an unknown, malformed or already revoked token (RFC 7009 2.2)', async () => {
    const tokens = await issueTokens(tg.url);
    await revoke(tg.url, tokens.access_token);
    for (const token of ['A'.repeat(43), 'not-a-token', 'a.b.c', tokens.access_token]) {
      expect((await revoke(tg.url, token)).status).toBe(200);
    }
  });

  it("refuses to revoke another client's tokens, and leaves them working", async () => {
    const tokens = await issueTokens(tg.url);
    for (const token of [tokens.access_token, tokens.refresh_token]) {
      const { status, errorCode, body } = await errorOf(await revoke(tg.url, token, OTHER_APP));
      expect({ status, errorCode, error: body.error }).toEqual({ status: 400, errorCode: 'TOKEN_NOT_ISSUED_TO_CLIENT', error: 'invalid_request' });
    }
    expect((await callProtected(tg.url, tokens.access_token)).status).toBe(200);
    expect((await refreshGrant(tg.url, tokens.refresh_token)).status).toBe(200);
  });

  it('accepts client credentials by HTTP Basic or in a JSON body', async () => {
    const tokens = await issueTokens(tg.url);
    const basic = `Basic ${Buffer.from(`${APP.client_id}:${APP.client_secret}`).toString('base64')}`;
    expect((await fetch(`${tg.url}/oauth2/v1/revokeToken`, { method: 'POST', headers: { token: tokens.access_token, authorization: basic } })).status).toBe(200);
    const viaBody = await fetch(`${tg.url}/oauth2/v1/revokeToken`, {
      method: 'POST',
      headers: { token: tokens.refresh_token, 'content-type': 'application/json' },
      body: JSON.stringify(APP),
    });
    expect(viaBody.status).toBe(200);
  });

  it.each([
    ['client credentials missing', { token: 'x' }, 400, 'CLIENT_CREDENTIALS_REQUIRED'],
    ['token missing', { ...APP }, 400, 'TOKEN_REQUIRED'],
    ['wrong client secret', { token: 'x', client_id: APP.client_id, client_secret: 'nope' }, 401, 'INVALID_CLIENT_CREDENTIALS'],
  ])('%s -> %i %s with RFC 6749 fields', async (_case, headers, status, errorCode) => {
    const response = await fetch(`${tg.url}/oauth2/v1/revokeToken`, { method: 'POST', headers });
    const result = await errorOf(response);
    expect(result).toMatchObject({ status, errorCode });
    expect(result.body.error).toBeTruthy();
  });

  it('refuses a parameter header sent twice instead of guessing (400, nothing revoked)', async () => {
    const tokens = await issueTokens(tg.url);
    const { hostname, port } = new URL(tg.url);
    const status = await new Promise<number>((resolve, reject) => {
      // Node joins repeated headers with ", " when fetch sends them, so the raw wire format is written here.
      const req = request({ hostname, port, path: '/oauth2/v1/revokeToken', method: 'POST', headers: ['client_id', APP.client_id, 'client_secret', APP.client_secret, 'token', tokens.access_token, 'token', 'x'] }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
    expect((await callProtected(tg.url, tokens.access_token)).status).toBe(200);
  });

  it('answers other methods with 405', async () => {
    const response = await fetch(`${tg.url}/oauth2/v1/revokeToken`, { headers: { ...APP, token: 'x' } });
    expect(await errorOf(response)).toMatchObject({ status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
  });
});

/** RFC 7009 form requests (oauth.form_encoded, apps[].form_encoded): the same answers as the spec's header requests. */
describe('POST /oauth2/v1/revokeToken with forms', () => {
  const REVOKE = '/oauth2/v1/revokeToken';
  const basicApp = basicAuth(APP.client_id, APP.client_secret);
  let tg: TestGateway;
  let closed: TestGateway;
  beforeAll(async () => {
    [tg, closed] = await Promise.all([
      bootGateway({ config: { oauth: { form_encoded: true } }, appSettings: { [OTHER_APP.client_id]: { form_encoded: false } } }),
      bootGateway(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([tg.close(), closed.close()]);
  });

  it('revokes an access token named in the form (client_secret_basic)', async () => {
    const tokens = await issueTokens(tg.url);
    const response = await postForm(tg.url, REVOKE, { token: tokens.access_token, token_type_hint: 'access_token' }, basicApp);
    expect(response.status).toBe(200);
    expect((await callProtected(tg.url, tokens.access_token)).status).toBe(401);
  });

  it('revokes a refresh token and its grant (client_secret_post), whatever token_type_hint says', async () => {
    const tokens = await issueTokens(tg.url);
    const response = await postForm(tg.url, REVOKE, { token: tokens.refresh_token, token_type_hint: 'access_token', ...APP });
    expect(response.status).toBe(200);
    expect((await callProtected(tg.url, tokens.access_token)).status).toBe(401);
    expect((await refreshGrant(tg.url, tokens.refresh_token)).status).toBe(400);
  });

  it('answers 200 for an unknown token (RFC 7009 2.2)', async () => {
    expect((await postForm(tg.url, REVOKE, { token: 'not-a-token' }, basicApp)).status).toBe(200);
  });

  it.each<[string, FormFields, Record<string, string>, number, string]>([
    ['no token', {}, basicApp, 400, 'TOKEN_REQUIRED'],
    ['a blank token', { token: ' ' }, basicApp, 400, 'TOKEN_REQUIRED'],
    ['token sent twice', { token: ['a', 'b'] }, basicApp, 400, 'MALFORMED_REQUEST'],
    ['token in the header and the form disagreeing', { token: 'a' }, { ...basicApp, token: 'b' }, 400, 'MALFORMED_REQUEST'],
    ['no client credentials', { token: 'a' }, {}, 400, 'CLIENT_CREDENTIALS_REQUIRED'],
    ['a form secret that disagrees with HTTP Basic', { token: 'a', client_secret: 'other' }, basicApp, 400, 'CLIENT_CREDENTIALS_CONFLICT'],
    ['a wrong client secret', { token: 'a', client_id: APP.client_id, client_secret: 'nope' }, {}, 401, 'INVALID_CLIENT_CREDENTIALS'],
    // The app kept to the spec's format: its form is ignored, as any other body is, so the token is missing.
    ['an app limited to the spec format', { token: 'a' }, basicAuth(OTHER_APP.client_id, OTHER_APP.client_secret), 400, 'TOKEN_REQUIRED'],
  ])('refuses %s: %i %s', async (_case, fields, headers, status, errorCode) => {
    const { status: got, errorCode: code, body } = await errorOf(await postForm(tg.url, REVOKE, fields, headers));
    expect({ status: got, errorCode: code }).toEqual({ status, errorCode });
    expect(body.error).toBeTruthy();
  });

  it("refuses another client's token named in a form, and leaves it working", async () => {
    const tokens = await issueTokens(tg.url);
    const { status, errorCode } = await errorOf(await postForm(tg.url, REVOKE, { token: tokens.access_token, ...OTHER_APP }));
    // app-two may not use forms: its form is ignored, so use the spec's header for the token.
    expect({ status, errorCode }).toEqual({ status: 400, errorCode: 'CLIENT_CREDENTIALS_REQUIRED' });
    const viaHeaders = await postForm(tg.url, REVOKE, {}, { ...basicAuth(OTHER_APP.client_id, OTHER_APP.client_secret), token: tokens.access_token });
    expect((await errorOf(viaHeaders)).errorCode).toBe('TOKEN_NOT_ISSUED_TO_CLIENT');
    expect((await callProtected(tg.url, tokens.access_token)).status).toBe(200);
  });

  it("with forms off, answers RFC 7009 requests exactly as before: the form is not read", async () => {
    const tokens = await issueTokens(closed.url);
    expect(await errorOf(await postForm(closed.url, REVOKE, { token: tokens.access_token }, basicApp))).toMatchObject({ status: 400, errorCode: 'TOKEN_REQUIRED' });
    expect(await errorOf(await postForm(closed.url, REVOKE, { ...APP }, { token: tokens.access_token }))).toMatchObject({ status: 400, errorCode: 'CLIENT_CREDENTIALS_REQUIRED' });
    expect((await callProtected(closed.url, tokens.access_token)).status).toBe(200);
  });
});
