/**
 * The gateway's names on the wire (SPEC 4), declared once: the paths of its
 * endpoints, relative to the base URL (SPEC 4: "All paths are relative to
 * {base_url}"), and the request headers that carry OAuth parameters. The
 * client builds its requests from them; the gateway can import the very same
 * constants from `@token-gateway/client/paths`, so that the two cannot drift.
 * A leaf module: no imports, no side effects.
 */

/** SPEC 4.3 and 4.4: the token endpoint, for the password grant and the refresh grant. */
export const TOKEN_PATH = '/oauth2/v1/token';

/** SPEC 4.5: revokes a refresh token (and with it its grant) or a single access token. */
export const REVOKE_PATH = '/oauth2/v1/revokeToken';

/** SPEC 4.1: the OpenID Connect Discovery 1.0 provider metadata. Public. */
export const DISCOVERY_PATH = '/.well-known/openid-configuration';

/** SPEC 4.2: the keys that verify the gateway's tokens (discovery's `jwks_uri`). Public. */
export const JWKS_PATH = '/oauth2/v1/keys';

/** The OpenAPI 3.1 document of the token service (the gateway's own, not in the SPEC). Public. */
export const OPENAPI_PATH = '/oauth2/v1/openapi.json';

/** RFC 8414 section 3: the same metadata as DISCOVERY_PATH, where OAuth 2.0 (not OpenID Connect) clients look. Public. */
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** RFC 7662: token introspection, for resource servers that cannot verify a JWT themselves (the gateway's own, not in the SPEC). */
export const INTROSPECT_PATH = '/oauth2/v1/introspect';

// SPEC 4.4 and 4.5: the refresh grant and revocation send their parameters as
// request headers, under these names. Header names are case-insensitive; these
// are written as the SPEC writes them, in lower case, which is also how Node
// and HTTP/2 deliver them.

/** SPEC 4.4, 4.5: the application's identifier. */
export const CLIENT_ID_HEADER = 'client_id';
/** SPEC 4.4, 4.5: the application's secret. */
export const CLIENT_SECRET_HEADER = 'client_secret';
/** SPEC 4.3, 4.4: `refresh_token` for the refresh grant; absent or `password` for the password grant. */
export const GRANT_TYPE_HEADER = 'grant_type';
/** SPEC 4.4: the refresh token being exchanged. */
export const REFRESH_TOKEN_HEADER = 'refresh_token';
/** SPEC 4.5: the refresh or access token to revoke. */
export const TOKEN_HEADER = 'token';
