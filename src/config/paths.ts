import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  DISCOVERY_PATH,
  INTROSPECT_PATH,
  JWKS_PATH,
  OPENAPI_PATH,
  REVOKE_PATH,
  TOKEN_PATH,
} from '@token-gateway/client/paths';

/*
 * The paths the gateway serves itself, declared once (STYLE habit 11): the
 * server's endpoint table, config validation (what a route may not overlap,
 * where endpoint policies attach), discovery, the OpenAPI document and the
 * docs all read them from here. The OAuth paths are the client package's
 * own constants (packages/client/src/paths.ts): the SDK builds its requests
 * from the very same names, so the two cannot drift.
 */

export { AUTHORIZATION_SERVER_METADATA_PATH, DISCOVERY_PATH, INTROSPECT_PATH, JWKS_PATH, OPENAPI_PATH, REVOKE_PATH, TOKEN_PATH };
export const READINESS_PATH = '/readyz';
export const LIVENESS_PATH = '/livez';

/** The endpoints policies can be attached to (`policies.endpoints`); health probes never get policies. */
export const POLICY_ENDPOINTS = [
  TOKEN_PATH,
  REVOKE_PATH,
  // Rate-limited like the other endpoints: a resource server may introspect on every call it receives.
  INTROSPECT_PATH,
  DISCOVERY_PATH,
  AUTHORIZATION_SERVER_METADATA_PATH,
  JWKS_PATH,
  // Public like discovery, but not exempt like the probes: a listener an operator closes to other networks stays closed.
  OPENAPI_PATH,
] as const;

export type PolicyEndpoint = (typeof POLICY_ENDPOINTS)[number];

/** No route may match a path under these (a catch-all `/` would): they are the gateway's own. */
export const RESERVED_PREFIXES = ['/oauth2', '/.well-known', READINESS_PATH, LIVENESS_PATH] as const;
