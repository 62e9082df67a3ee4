import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import { ResourceOwnerPassword, type ModuleOptions } from 'simple-oauth2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, USER } from '../helpers/accounts.js';
import { postForm } from '../helpers/forms.js';
import { bootGateway, callProtected, type TestGateway } from '../helpers/gateway.js';

/**
 * Standard OAuth 2.0 client libraries that nobody here wrote, unmodified,
 * against a real listening gateway: with oauth.form_encoded on they get
 * tokens, refresh, revoke and introspect, and the token works on a protected
 * route; with it off they get exactly the spec's 415 and 400 rows.
 *
 * openid-client 6 (panva, on oauth4webapi) and simple-oauth2 5 (its
 * resource-owner-password client, on @hapi/wreck) share no code. The
 * Python libraries of the issue (requests-oauthlib, authlib) cannot be
 * installed here (no PyPI): they send the same RFC 6749 forms.
 */

const CREDENTIALS = { username: USER.username, password: USER.password };
const noneAsked = (error: unknown) => error;

/** openid-client's view of the gateway, from its discovery document, with the client authentication named. */
async function discover(tg: TestGateway, auth: 'post' | 'basic', algorithm: 'oidc' | 'oauth2' = 'oidc'): Promise<oidc.Configuration> {
  const clientAuth = auth === 'post' ? oidc.ClientSecretPost(APP.client_secret) : oidc.ClientSecretBasic(APP.client_secret);
  // The gateway listens on plain http://127.0.0.1 here; openid-client refuses that unless told it is on purpose.
  return oidc.discovery(new URL(tg.url), APP.client_id, undefined, clientAuth, { execute: [oidc.allowInsecureRequests], algorithm });
}

/** What the spec's envelope says inside an oauth4webapi ResponseBodyError. */
function gatewayError(error: unknown): { status: number; error: string; errorCode: string } {
  expect(error).toBeInstanceOf(oidc.ResponseBodyError);
  const { status, error: code, cause } = error as oidc.ResponseBodyError;
  return { status, error: code, errorCode: (cause as { errors: Array<{ errorCode: string }> }).errors[0]?.errorCode ?? '' };
}

describe('openid-client 6 against a gateway with oauth.form_encoded: true', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway({ config: { oauth: { form_encoded: true } } });
  });
  afterAll(() => tg.close());

  it.each([
    ['client_secret_post', 'post', 'oidc'],
    ['client_secret_basic', 'basic', 'oidc'],
    ['client_secret_basic, discovered at RFC 8414 /.well-known/oauth-authorization-server', 'basic', 'oauth2'],
  ] as const)('discovers, grants, calls, refreshes, introspects and revokes with %s', async (_how, auth, algorithm) => {
    const config = await discover(tg, auth, algorithm);
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(tg.gateway.context.issuer);
    expect(metadata.token_endpoint_auth_methods_supported).toContain(auth === 'post' ? 'client_secret_post' : 'client_secret_basic');

    // The password grant has no helper of its own in openid-client 6: its generic grant request sends RFC 6749 4.3.2.
    const tokens = await oidc.genericGrantRequest(config, 'password', CREDENTIALS);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expiresIn()).toBeGreaterThan(1_700);
    expect((await callProtected(tg.url, tokens.access_token)).status).toBe(200);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await callProtected(tg.url, refreshed.access_token)).status).toBe(200);

    expect(await oidc.tokenIntrospection(config, refreshed.access_token)).toMatchObject({ active: true, client_id: APP.client_id, sub: USER.username, token_type: 'Bearer' });
    expect(await oidc.tokenIntrospection(config, refreshed.refresh_token as string)).toMatchObject({ active: true, token_type: 'refresh_token' });
    // The used refresh token is spent.
    expect(await oidc.tokenIntrospection(config, tokens.refresh_token as string)).toEqual({ active: false });

    await oidc.tokenRevocation(config, refreshed.access_token, { token_type_hint: 'access_token' });
    expect((await callProtected(tg.url, refreshed.access_token)).status).toBe(401);
    expect(await oidc.tokenIntrospection(config, refreshed.access_token)).toEqual({ active: false });
    await oidc.tokenRevocation(config, refreshed.refresh_token as string);
    expect(await oidc.tokenIntrospection(config, refreshed.refresh_token as string)).toEqual({ active: false });
  });

  it('shows the spec error through its own error type: RFC 6749 error codes, the envelope as cause', async () => {
    const config = await discover(tg, 'post');
    const wrong = await oidc.genericGrantRequest(config, 'password', { ...CREDENTIALS, password: 'not-it' }).catch(noneAsked);
    expect(gatewayError(wrong)).toEqual({ status: 401, error: 'invalid_grant', errorCode: 'INVALID_USER_CREDENTIALS' });
    const scoped = await oidc.genericGrantRequest(config, 'password', { ...CREDENTIALS, scope: 'openid' }).catch(noneAsked);
    expect(gatewayError(scoped)).toEqual({ status: 400, error: 'invalid_scope', errorCode: 'INVALID_SCOPE' });
    const unsupported = await oidc.genericGrantRequest(config, 'client_credentials', {}).catch(noneAsked);
    expect(gatewayError(unsupported)).toEqual({ status: 400, error: 'unsupported_grant_type', errorCode: 'UNSUPPORTED_GRANT_TYPE' });
  });
});

describe('openid-client 6 against a gateway with the switch off (the default)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  it.each(['post', 'basic'] as const)('gets exactly the spec rows with client_secret_%s: 415 on the token endpoint, 400 TOKEN_REQUIRED on revocation', async (auth) => {
    const config = await discover(tg, auth);
    expect(config.serverMetadata().token_endpoint_auth_methods_supported).toEqual(['client_secret_basic']);
    const grant = await oidc.genericGrantRequest(config, 'password', CREDENTIALS).catch(noneAsked);
    expect(gatewayError(grant)).toEqual({ status: 415, error: 'invalid_request', errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
    const refresh = await oidc.refreshTokenGrant(config, `${'A'.repeat(22)}.${'B'.repeat(43)}`).catch(noneAsked);
    expect(gatewayError(refresh)).toEqual({ status: 415, error: 'invalid_request', errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
    const revocation = await oidc.tokenRevocation(config, 'a-token').catch(noneAsked);
    // client_secret_post's credentials are in the ignored form too: the first thing missing is then the client.
    const expected = auth === 'basic' ? 'TOKEN_REQUIRED' : 'CLIENT_CREDENTIALS_REQUIRED';
    expect(gatewayError(revocation)).toEqual({ status: 400, error: 'invalid_request', errorCode: expected });
  });

  it('still introspects, since RFC 7662 has no other format', async () => {
    const config = await discover(tg, 'basic');
    expect(await oidc.tokenIntrospection(config, 'not-a-token')).toEqual({ active: false });
  });
});

function simpleOAuth2(tg: TestGateway, authorizationMethod: 'header' | 'body'): ResourceOwnerPassword {
  const options: ModuleOptions = {
    client: { id: APP.client_id, secret: APP.client_secret },
    auth: { tokenHost: tg.url, tokenPath: '/oauth2/v1/token', revokePath: '/oauth2/v1/revokeToken' },
    options: { authorizationMethod },
  };
  return new ResourceOwnerPassword(options);
}

/** @hapi/wreck's Boom error: the status, and the spec's envelope as the payload. */
function wreckError(error: unknown): { status: number; error: string; errorCode: string } {
  const { output, data } = error as { output: { statusCode: number }; data: { payload: { error: string; errors: Array<{ errorCode: string }> } } };
  return { status: output.statusCode, error: data.payload.error, errorCode: data.payload.errors[0]?.errorCode ?? '' };
}

describe('simple-oauth2 5 (ResourceOwnerPassword)', () => {
  let on: TestGateway;
  let off: TestGateway;
  beforeAll(async () => {
    [on, off] = await Promise.all([bootGateway({ config: { oauth: { form_encoded: true } } }), bootGateway()]);
  });
  afterAll(async () => {
    await Promise.all([on.close(), off.close()]);
  });

  it.each(['header', 'body'] as const)('gets, uses, refreshes and revokes tokens with credentials in the %s', async (method) => {
    const client = simpleOAuth2(on, method);
    const accessToken = await client.getToken(CREDENTIALS);
    expect(accessToken.expired()).toBe(false);
    const first = accessToken.token as { access_token: string; refresh_token: string };
    expect((await callProtected(on.url, first.access_token)).status).toBe(200);
    const refreshed = await accessToken.refresh();
    const second = refreshed.token as { access_token: string; refresh_token: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await callProtected(on.url, second.access_token)).status).toBe(200);
    await refreshed.revokeAll();
    expect((await callProtected(on.url, second.access_token)).status).toBe(401);
    const reuse = await refreshed.refresh().catch(noneAsked);
    expect(wreckError(reuse)).toEqual({ status: 400, error: 'invalid_grant', errorCode: 'INVALID_REFRESH_TOKEN' });
  });

  it('gets the spec 415 with the switch off, and a 400 TOKEN_REQUIRED when revoking', async () => {
    const client = simpleOAuth2(off, 'header');
    expect(wreckError(await client.getToken(CREDENTIALS).catch(noneAsked))).toEqual({ status: 415, error: 'invalid_request', errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
    const stranded = client.createToken({ access_token: 'a-token', refresh_token: 'r', expires_in: 1800 });
    expect(wreckError(await stranded.revoke('access_token').catch(noneAsked))).toEqual({ status: 400, error: 'invalid_request', errorCode: 'TOKEN_REQUIRED' });
  });
});

describe('the switch reloads live (oauth.form_encoded, apps[].form_encoded)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  it('serves forms and advertises client_secret_post once gateway.yaml turns forms on, and stops when it turns them off', async () => {
    const grant = () => postForm(tg.url, '/oauth2/v1/token', { grant_type: 'password', ...CREDENTIALS, ...APP });
    const methods = async () => ((await (await fetch(`${tg.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>).token_endpoint_auth_methods_supported;
    expect((await grant()).status).toBe(415);
    const file = join(tg.dir, 'gateway.yaml');
    const original = await readFile(file, 'utf8');
    await writeFile(file, `${original}\noauth:\n  form_encoded: true\n`);
    expect(await tg.gateway.reload('test: forms on')).toMatchObject({ ok: true, changed: ['oauth.form_encoded'] });
    expect((await grant()).status).toBe(200);
    expect(await methods()).toEqual(['client_secret_basic', 'client_secret_post']);
    await writeFile(file, original);
    expect((await tg.gateway.reload('test: forms off')).ok).toBe(true);
    expect((await grant()).status).toBe(415);
    expect(await methods()).toEqual(['client_secret_basic']);
  });
});
