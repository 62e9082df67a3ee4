import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { bootGateway, errorOf, issueTokens, type TestGateway } from '../../helpers/gateway.js';

describe('GET /oauth2/v1/keys (SPEC 4.2, RFC 7517)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  it('serves public keys only, each with kid, alg and use, cacheable', async () => {
    const response = await fetch(`${tg.url}/oauth2/v1/keys`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/jwk-set+json');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const { keys } = (await response.json()) as { keys: Array<Record<string, unknown>> };
    expect(keys.length).toBeGreaterThanOrEqual(2);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(key.kid).toBeTruthy();
      expect(key).not.toHaveProperty('d');
    }
  });

  it("lets a standard client (jose's remote JWKS) verify an access token via discovery", async () => {
    const metadata = (await (await fetch(`${tg.url}/.well-known/openid-configuration`)).json()) as { issuer: string; jwks_uri: string };
    const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri));
    const { access_token } = await issueTokens(tg.url);
    const { payload, protectedHeader } = await jwtVerify(access_token, jwks, { issuer: metadata.issuer, typ: 'at+jwt', algorithms: ['ES256'] });
    expect(protectedHeader.typ).toBe('at+jwt');
    expect(payload.iss).toBe(metadata.issuer);
  });
});

describe('keys.algorithm', () => {
  it.each(['EdDSA', 'RS256'] as const)('%s: discovery lists it, the JWKS publishes it, a standard client verifies with it', async (algorithm) => {
    const tg = await bootGateway({ config: { keys: { algorithm } } });
    try {
      const metadata = (await (await fetch(`${tg.url}/.well-known/openid-configuration`)).json()) as { issuer: string; jwks_uri: string; id_token_signing_alg_values_supported: string[] };
      expect(metadata.id_token_signing_alg_values_supported).toEqual([algorithm]);
      const { access_token } = await issueTokens(tg.url);
      const { protectedHeader } = await jwtVerify(access_token, createRemoteJWKSet(new URL(metadata.jwks_uri)), { issuer: metadata.issuer, algorithms: [algorithm] });
      expect(protectedHeader.alg).toBe(algorithm);
    } finally {
      await tg.close();
    }
  });
});
