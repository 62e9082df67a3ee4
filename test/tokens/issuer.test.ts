import { describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../../src/config/load.js';
import { KeyRing } from '../../src/keys/key-ring.js';
import { generateSigningKey } from '../../src/keys/signing-key.js';
import { accessTokensOf, issuerOf } from '../../src/tokens/issuer.js';
import { ManualClock } from '../helpers/clock.js';
import { configFile } from '../helpers/config-file.js';

async function tokensFor(yaml: string, issuer: string) {
  const clock = new ManualClock();
  const ring = new KeyRing({ algorithm: 'ES256', rotationIntervalMs: 3_600_000, retentionMs: 3_600_000, clock });
  ring.replaceKeys([await generateSigningKey('ES256', clock.now())]);
  const config = await loadGatewayConfig(await configFile(yaml));
  return { tokens: accessTokensOf(config, issuer, ring, clock), clock };
}
const SUBJECT = { username: 'u', clientId: 'c', grantId: 'g' };

describe('the issuer of access tokens', () => {
  it("is tokens' `issuer` when configured, else the plain listener's own URL", async () => {
    expect(issuerOf(await loadGatewayConfig(await configFile('issuer: https://api.example.com\n')), 'http://127.0.0.1:8080')).toBe('https://api.example.com');
    expect(issuerOf(await loadGatewayConfig(await configFile('')), 'http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
  });

  it('without an audience, writes the issuer as aud and accepts the trusted regions as issuer and audience', async () => {
    const us = await tokensFor('tokens: { trusted_issuers: ["https://uk.example.com"] }\n', 'https://us.example.com');
    const uk = await tokensFor('tokens: { trusted_issuers: ["https://us.example.com"] }\n', 'https://uk.example.com');
    const { claims } = await us.tokens.issue(SUBJECT, us.clock.now());
    expect(claims).toMatchObject({ iss: 'https://us.example.com', aud: 'https://us.example.com', exp: claims.iat + 1_800 });
    // Same key ring in production (one environment); here each has its own, so only the claims are compared.
    expect(uk.tokens.ttlSeconds).toBe(1_800);
  });

  it('with an audience, writes and accepts only that audience', async () => {
    const { tokens, clock } = await tokensFor('tokens: { audience: "https://api.example.com", access_ttl: 5m }\n', 'https://us.example.com');
    const { token, claims } = await tokens.issue(SUBJECT, clock.now());
    expect(claims.aud).toBe('https://api.example.com');
    expect(tokens.ttlSeconds).toBe(300);
    await expect(tokens.verify(token)).resolves.toMatchObject({ aud: 'https://api.example.com' });
  });
});
