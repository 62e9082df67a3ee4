/*
 * The paths the gateway serves itself, declared once (STYLE habit 11): the
 * server's endpoint table, config validation (what a route may not overlap,
 * where endpoint policies attach), discovery, the OpenAPI document and the
 * docs all read them from here.
 */

export const OAUTH_PREFIX = '/oauth2/v1';
/** SPEC 4.3 and 4.4. */
export const TOKEN_PATH = `${OAUTH_PREFIX}/token`;
/** SPEC 4.5. */
export const REVOKE_PATH = `${OAUTH_PREFIX}/revokeToken`;
/** SPEC 4.1 (OpenID Connect Discovery 1.0 section 4). */
export const DISCOVERY_PATH = '/.well-known/openid-configuration';
/** SPEC 4.2: the `jwks_uri`. */
export const JWKS_PATH = `${OAUTH_PREFIX}/keys`;
export const OPENAPI_PATH = `${OAUTH_PREFIX}/openapi.json`;
export const READINESS_PATH = '/readyz';
export const LIVENESS_PATH = '/livez';

/** The endpoints policies can be attached to (`policies.endpoints`); health probes never get policies. */
export const POLICY_ENDPOINTS = [
  TOKEN_PATH,
  REVOKE_PATH,
  DISCOVERY_PATH,
  JWKS_PATH,
  // Public like discovery, but not exempt like the probes: a listener an operator closes to other networks stays closed.
  OPENAPI_PATH,
] as const;

export type PolicyEndpoint = (typeof POLICY_ENDPOINTS)[number];

/** No route may match a path under these (a catch-all `/` would): they are the gateway's own. */
export const RESERVED_PREFIXES = ['/oauth2', '/.well-known', READINESS_PATH, LIVENESS_PATH] as const;
