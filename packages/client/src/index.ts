/**
 * `@token-gateway/client`: the client SDK, a package of its own. It imports
 * nothing from the gateway and nothing from `node:`, so it runs wherever
 * `fetch` does (Node >= 20, Deno, Bun, browsers).
 */
export { TokenClient } from './token-client.js';
export type { TokenClientOptions } from './options.js';
export type { FetchLike } from './token-endpoint.js';
export type { FetchInput } from './api-request.js';
export { TokenGatewayError, TokenRequestError, type TokenGatewayErrorInit } from './errors.js';
export { DEFAULT_RENEW_AFTER_MS, EXPIRY_MARGIN_MS } from './renewal-schedule.js';
// The wire names, also importable alone from @token-gateway/client/paths.
export {
  TOKEN_PATH,
  REVOKE_PATH,
  DISCOVERY_PATH,
  JWKS_PATH,
  OPENAPI_PATH,
  AUTHORIZATION_SERVER_METADATA_PATH,
  INTROSPECT_PATH,
  CLIENT_ID_HEADER,
  CLIENT_SECRET_HEADER,
  GRANT_TYPE_HEADER,
  REFRESH_TOKEN_HEADER,
  TOKEN_HEADER,
} from './paths.js';
