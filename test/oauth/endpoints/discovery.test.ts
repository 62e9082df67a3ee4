import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, errorOf, type TestGateway } from '../../helpers/gateway.js';
import { OTHER_APP } from '../../helpers/accounts.js';

describe('GET /.well-known/openid-configuration (SPEC 4.1)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  it('publishes OpenID Connect Discovery / RFC 8414 metadata with cache headers', async () => {
    const response = await fetch(`${tg.url}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const metadata = (await response.json()) as Record<string, unknown>;
    const issuer = tg.gateway.context.issuer;
    expect(metadata).toMatchObject({
      issuer,
      jwks_uri: `${issuer}/oauth2/v1/keys`,
      token_endpoint: `${issuer}/oauth2/v1/token`,
      revocation_endpoint: `${issuer}/oauth2/v1/revokeToken`,
      grant_types_supported: ['password', 'refresh_token'],
      response_types_supported: [],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
  });

  it('needs no authentication and refuses POST with 405', async () => {
    const response = await fetch(`${tg.url}/.well-known/openid-configuration`, { method: 'POST' });
    expect(await errorOf(response)).toMatchObject({ status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

const metadataOf = async (tg: TestGateway): Promise<Record<string, unknown>> => (await fetch(`${tg.url}/.well-known/openid-configuration`)).json() as Promise<Record<string, unknown>>;

/** Discovery lists exactly what the running configuration accepts (docs/standard-oauth-clients.md). */
describe('discovery tells the truth about client authentication and forms', () => {
  let specOnly: TestGateway;
  let forms: TestGateway;
  let oneApp: TestGateway;
  let noApp: TestGateway;
  beforeAll(async () => {
    [specOnly, forms, oneApp, noApp] = await Promise.all([
      bootGateway(),
      bootGateway({ config: { oauth: { form_encoded: true } } }),
      bootGateway({ appSettings: { [OTHER_APP.client_id]: { form_encoded: true } } }),
      // On gateway-wide, off for every app there is.
      bootGateway({ config: { oauth: { form_encoded: true } }, appSettings: { 'app-one': { form_encoded: false }, 'app-two': { form_encoded: false }, 'app-frozen': { form_encoded: false } } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([specOnly, forms, oneApp, noApp].map((tg) => tg.close()));
  });

  it('advertises introspection (RFC 7662, RFC 8414 2), which always takes forms', async () => {
    for (const tg of [specOnly, forms]) {
      const metadata = await metadataOf(tg);
      expect(metadata).toMatchObject({
        introspection_endpoint: `${tg.gateway.context.issuer}/oauth2/v1/introspect`,
        introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      });
    }
  });

  it('lists only HTTP Basic for the token and revocation endpoints while no app may send forms', async () => {
    for (const tg of [specOnly, noApp]) {
      expect(await metadataOf(tg)).toMatchObject({
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
        revocation_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
  });

  it('adds client_secret_post once forms are on, gateway-wide or for one app', async () => {
    for (const tg of [forms, oneApp]) {
      expect(await metadataOf(tg)).toMatchObject({
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      });
    }
  });

  it('lists no scopes (none is defined) and the two grants', async () => {
    expect(await metadataOf(forms)).toMatchObject({ scopes_supported: [], grant_types_supported: ['password', 'refresh_token'] });
  });
});
