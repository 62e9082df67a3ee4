import { GatewayError } from '../../errors/gateway-error.js';
import { sendJsonText } from '../../http/respond.js';
import { JWKS_PATH } from '../../config/paths.js';
import type { Endpoint } from './endpoint.js';

/** Five minutes, and never more than half a rotation interval. */
const JWKS_MAX_AGE_S = 300;

/**
 * GET /oauth2/v1/keys (RFC 7517 JWK Set). Each key is published a whole
 * rotation interval before it signs, so a cache up to half that interval old
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
    const maxAge = Math.min(JWKS_MAX_AGE_S, Math.floor(ctx.config.keys.rotation_interval / 2000));
    sendJsonText(exchange.res, 200, ctx.keyRing.jwksJson(), {
      'Content-Type': 'application/jwk-set+json',
      'Cache-Control': `public, max-age=${maxAge}`,
    });
  },
};
