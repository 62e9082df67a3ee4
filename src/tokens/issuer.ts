import type { Clock } from '../clock.js';
import type { GatewayConfig } from '../config/schema.js';
import type { KeyRing } from '../keys/key-ring.js';
import { AccessTokens } from './access-token.js';

/** `iss` of every token and the base of every published URL: `issuer`, else the plain listener's own URL. */
export const issuerOf = (config: GatewayConfig, listenUrl: string): string => config.issuer ?? listenUrl;

/**
 * The issuer and verifier of access tokens. Without a configured audience
 * each region's tokens carry its own issuer, and the regions accept each
 * other's (`tokens.trusted_issuers`).
 */
export function accessTokensOf(config: GatewayConfig, issuer: string, ring: KeyRing, clock: Clock): AccessTokens {
  const acceptedIssuers = [issuer, ...config.tokens.trusted_issuers];
  return new AccessTokens({
    ring,
    issuer,
    acceptedIssuers,
    audience: config.tokens.audience ?? issuer,
    acceptedAudiences: config.tokens.audience ? [config.tokens.audience] : acceptedIssuers,
    ttlMs: config.tokens.access_ttl,
    leewayMs: config.tokens.clock_leeway,
    clock,
  });
}
