import { GatewayError } from '../../errors/gateway-error.js';
import { sendJsonText } from '../../http/respond.js';
import { JWKS_PATH } from '../../config/paths.js';
import { jwksMaxAgeSeconds } from '../../keys/publication.js';
import type { Endpoint } from './endpoint.js';

/**
 * GET /oauth2/v1/keys (RFC 7517 JWK Set). The key ring lets a key sign only
 * once it has been published for longer than this answer may be cached
 * (`keys/publication.ts` declares that lifetime for both), so a cached copy
 * always holds the signing key; jose and openid-client also refetch on an
 * unknown kid.
 */
export const jwksEndpoint: Endpoint = {
  path: JWKS_PATH,
  methods: ['GET', 'HEAD'],
  oauthErrors: false,

  async serve(ctx, exchange) {
    // An empty set would be cached by clients and make every token look forged.
    if (!ctx.keyRing.loaded) throw new GatewayError('SERVICE_UNAVAILABLE', { detail: 'key ring not loaded yet', headers: { 'Retry-After': '1' } });
    const maxAge = jwksMaxAgeSeconds(ctx.config.keys.rotation_interval);
    sendJsonText(exchange.res, 200, ctx.keyRing.jwksJson(), {
      'Content-Type': 'application/jwk-set+json',
      'Cache-Control': `public, max-age=${maxAge}`,
    });
  },
};
