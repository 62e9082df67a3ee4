import { sendJsonText } from '../../http/respond.js';
import type { Exchange } from '../../http/exchange.js';
import type { GatewayContext } from '../../context.js';
import type { Endpoint } from './endpoint.js';
import { serviceDescLink } from '../openapi/location.js';
import { readsForms, type FormEncoding } from '../form-encoding.js';
import { DISCOVERY_PATH, INTROSPECT_PATH, JWKS_PATH, REVOKE_PATH, TOKEN_PATH } from '../../config/paths.js';

/** Metadata changes only with configuration; an hour of caching spares clients a call per token. */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=3600';

/** RFC 6749 2.3.1 by HTTP Basic: accepted on every endpoint, beside the spec's own places (headers, a JSON body). */
const BASIC: readonly string[] = ['client_secret_basic'];
/** RFC 6749 2.3.1 in the form body too: only where forms are read. */
const BASIC_AND_POST: readonly string[] = ['client_secret_basic', 'client_secret_post'];

/**
 * The client authentication methods of one endpoint, as the running
 * configuration accepts them. `client_secret_post` is credentials in a form
 * body, so it is listed only where a form is read: always on introspection
 * (RFC 7662), on the token and revocation endpoints when some app may use
 * forms (gateway.yaml `oauth.form_encoded`, accounts.yaml
 * `apps[].form_encoded`). The spec's JSON body and headers have no
 * registered name (RFC 8414 2 lists registered values only).
 */
export function authMethods(ctx: GatewayContext, forms: FormEncoding): readonly string[] {
  return readsForms(ctx, forms) ? BASIC_AND_POST : BASIC;
}

/**
 * OpenID Connect Discovery 1.0 section 3 / RFC 8414 section 2, telling what
 * this configuration accepts. There is no authorization endpoint (SPEC 1:
 * two-legged password flow), so `response_types_supported`, REQUIRED by both
 * documents, is present and empty; no scope is defined (oauth/scope.ts), so
 * `scopes_supported` is empty.
 */
export function providerMetadata(ctx: GatewayContext): Record<string, unknown> {
  const { issuer } = ctx;
  return {
    issuer,
    token_endpoint: `${issuer}${TOKEN_PATH}`,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    revocation_endpoint: `${issuer}${REVOKE_PATH}`,
    introspection_endpoint: `${issuer}${INTROSPECT_PATH}`,
    grant_types_supported: ['password', 'refresh_token'],
    response_types_supported: [],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [ctx.keyRing.algorithm],
    scopes_supported: [],
    token_endpoint_auth_methods_supported: authMethods(ctx, 'opt-in'),
    revocation_endpoint_auth_methods_supported: authMethods(ctx, 'opt-in'),
    introspection_endpoint_auth_methods_supported: authMethods(ctx, 'always'),
    claims_supported: ['iss', 'sub', 'aud', 'client_id', 'iat', 'exp', 'jti', 'sid'],
  };
}

// The metadata depends only on one generation of the configuration and accounts: serialised once per context.
const serialised = new WeakMap<GatewayContext, string>();

function metadataJson(ctx: GatewayContext): string {
  let json = serialised.get(ctx);
  if (json === undefined) serialised.set(ctx, (json = JSON.stringify(providerMetadata(ctx))));
  return json;
}

/** The metadata, served alike at both well-known paths. */
export function sendProviderMetadata(ctx: GatewayContext, exchange: Exchange): void {
  // Always JSON: the document's format is fixed by OpenID Connect Discovery and RFC 8414.
  sendJsonText(exchange.res, 200, metadataJson(ctx), {
    'Cache-Control': DISCOVERY_CACHE_CONTROL,
    // The metadata has no member for a machine-readable API description; RFC 8631's link relation is made for it.
    Link: serviceDescLink(ctx.issuer),
  });
}

export const discoveryEndpoint: Endpoint = {
  path: DISCOVERY_PATH,
  methods: ['GET', 'HEAD'],
  oauthErrors: false,

  async serve(ctx, exchange) {
    sendProviderMetadata(ctx, exchange);
  },
};
