import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, errorOf, type TestGateway } from '../../helpers/gateway.js';

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
