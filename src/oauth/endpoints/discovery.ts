import { sendJsonText } from '../../http/respond.js';
import type { GatewayContext } from '../../context.js';
import type { Endpoint } from './endpoint.js';
import { serviceDescLink } from '../openapi/location.js';
import { DISCOVERY_PATH, JWKS_PATH, REVOKE_PATH, TOKEN_PATH } from '../../config/paths.js';

/** Metadata changes only with configuration; an hour of caching spares clients a call per token. */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=3600';

/**
 * OpenID Connect Discovery 1.0 section 3 / RFC 8414 section 2. There is no
 * authorization endpoint (SPEC 1: two-legged password flow), so
 * `response_types_supported`, REQUIRED by both documents, is present and empty.
 */
export function providerMetadata(ctx: GatewayContext): Record<string, unknown> {
  const { issuer } = ctx;
  const authMethods = ['client_secret_basic', 'client_secret_post'];
  return {
    issuer,
    token_endpoint: `${issuer}${TOKEN_PATH}`,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    revocation_endpoint: `${issuer}${REVOKE_PATH}`,
    grant_types_supported: ['password', 'refresh_token'],
    response_types_supported: [],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [ctx.keyRing.algorithm],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    claims_supported: ['iss', 'sub', 'aud', 'client_id', 'iat', 'exp', 'jti', 'sid'],
  };
}

// The metadata depends only on start-up settings: serialised once per gateway.
const serialised = new WeakMap<GatewayContext, string>();

function metadataJson(ctx: GatewayContext): string {
  let json = serialised.get(ctx);
  if (json === undefined) serialised.set(ctx, (json = JSON.stringify(providerMetadata(ctx))));
  return json;
}

export const discoveryEndpoint: Endpoint = {
  path: DISCOVERY_PATH,
  methods: ['GET', 'HEAD'],
  oauthErrors: false,

  async serve(ctx, exchange) {
    // Always JSON: the document's format is fixed by OpenID Connect Discovery.
    sendJsonText(exchange.res, 200, metadataJson(ctx), {
      'Cache-Control': DISCOVERY_CACHE_CONTROL,
      // The metadata has no member for a machine-readable API description; RFC 8631's link relation is made for it.
      Link: serviceDescLink(ctx.issuer),
    });
  },
};
