import { AUTHORIZATION_SERVER_METADATA_PATH, DISCOVERY_PATH, INTROSPECT_PATH, JWKS_PATH, OPENAPI_PATH, REVOKE_PATH, TOKEN_PATH } from '@token-gateway/client/paths';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * The client package declares the gateway's paths (@token-gateway/client/paths);
 * until every endpoint is built from those constants, a real gateway is held
 * to them here, through its own discovery document.
 */
describe('the gateway serves the paths @token-gateway/client declares', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  it('names the token, revocation and key endpoints at those paths in its discovery document', async () => {
    const response = await fetch(`${tg.url}${DISCOVERY_PATH}`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      token_endpoint: `${metadata.issuer}${TOKEN_PATH}`,
      revocation_endpoint: `${metadata.issuer}${REVOKE_PATH}`,
      jwks_uri: `${metadata.issuer}${JWKS_PATH}`,
      introspection_endpoint: `${metadata.issuer}${INTROSPECT_PATH}`,
    });
  });

  it.each([
    ['the key set', JWKS_PATH, 'application/jwk-set+json'],
    ['the OpenAPI document', OPENAPI_PATH, 'application/vnd.oai.openapi+json'],
    ['the RFC 8414 metadata', AUTHORIZATION_SERVER_METADATA_PATH, 'application/json'],
  ])('serves %s at %s', async (_, path, mediaType) => {
    const response = await fetch(`${tg.url}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain(mediaType);
  });

  it.each([TOKEN_PATH, REVOKE_PATH, INTROSPECT_PATH])('answers a POST to %s with its own error envelope, not a 404', async (path) => {
    // No credentials: the endpoint itself refuses, which a path it does not serve would not.
    const response = await fetch(`${tg.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).not.toBe(404);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(await response.json()).toMatchObject({ success: false, errors: [{ errorCode: expect.any(String) }] });
  });
});
