/**
 * The spec's error table (SPEC section 7) as one catalogue, plus the rows the
 * spec leaves "not shown" that a gateway still has to answer. Every entry has a
 * stable `errorCode` that clients and dashboards can switch on; the status and
 * message of a spec row are the contract and never change.
 *
 * `oauthError` is the RFC 6749 section 5.2 code added on the token and
 * revocation endpoints so that standard OAuth client libraries show the reason.
 */
export interface CatalogueEntry {
  readonly status: number;
  /** The HTTP reason phrase, shown as `errorType` in the envelope. */
  readonly errorType: string;
  readonly message: string;
  readonly oauthError: string;
  /** True for the rows that are copied from SPEC section 7. */
  readonly fromSpec: boolean;
}

const entry = (
  status: number,
  errorType: string,
  message: string,
  oauthError: string,
  fromSpec = true,
): CatalogueEntry => Object.freeze({ status, errorType, message, oauthError, fromSpec });

const NOT_ALLOWED = 'Access to the requested resource is not allowed';
const FORBIDDEN = 'Access to the requested resource is Forbidden';
const INVALID_STATE = 'Your account is in invalid state. For further assistance, please contact API support';

export const catalogue = Object.freeze({
  // --- SPEC section 7, row by row -------------------------------------------
  ACCESS_TOKEN_INVALID: entry(401, 'Unauthorized', 'Access token is Invalid', 'invalid_token'),
  CLIENT_CREDENTIALS_REQUIRED: entry(
    400,
    'Bad Request',
    "The 'client_id' and 'client_secret' attributes are required",
    'invalid_request',
  ),
  METHOD_NOT_ALLOWED: entry(405, 'Method Not Allowed', 'The requested method is not allowed', 'invalid_request'),
  UNSUPPORTED_MEDIA_TYPE: entry(
    415,
    'Unsupported Media Type',
    'Content-Type header is unsupported',
    'invalid_request',
  ),
  USER_CREDENTIALS_REQUIRED: entry(
    400,
    'Bad Request',
    "The 'username' and 'password' attributes are required",
    'invalid_request',
  ),
  INVALID_USER_CREDENTIALS: entry(
    401,
    'Unauthorized',
    'Access is denied due to invalid username or password',
    'invalid_grant',
  ),
  INVALID_CLIENT_CREDENTIALS: entry(
    401,
    'Unauthorized',
    'Access is denied due to invalid client id or client secret',
    'invalid_client',
  ),
  // One spec row, two codes: a suspended user is a grant problem, a suspended app a client problem.
  USER_ACCOUNT_INVALID_STATE: entry(401, 'Unauthorized', INVALID_STATE, 'invalid_grant'),
  CLIENT_ACCOUNT_INVALID_STATE: entry(401, 'Unauthorized', INVALID_STATE, 'invalid_client'),
  // One spec row, one code per protection, so logs and metrics tell them apart.
  REGEX_THREAT: entry(401, 'Unauthorized', NOT_ALLOWED, 'access_denied'),
  JSON_THREAT: entry(401, 'Unauthorized', NOT_ALLOWED, 'access_denied'),
  SPIKE_ARREST: entry(401, 'Unauthorized', NOT_ALLOWED, 'access_denied'),
  AUTHENTICATION_REQUIRED: entry(401, 'Unauthorized', NOT_ALLOWED, 'invalid_request'),
  // Too many failed passwords for a username or from an address: the default authentication failure, whatever the password.
  LOGIN_LOCKED: entry(401, 'Unauthorized', NOT_ALLOWED, 'invalid_grant'),
  IP_RANGE_FORBIDDEN: entry(403, 'Forbidden', FORBIDDEN, 'access_denied'),
  TIME_OF_DAY_FORBIDDEN: entry(403, 'Forbidden', FORBIDDEN, 'access_denied'),
  INTERNAL_ERROR: entry(
    500,
    'Internal Server Error',
    'Internal Server Error. If problems persist, please contact API support',
    'server_error',
  ),

  // --- Not shown in the spec: decided here, documented in docs/errors.md -----
  MALFORMED_JSON_BODY: entry(400, 'Bad Request', 'The request body must be a valid JSON object', 'invalid_request', false),
  MALFORMED_REQUEST: entry(400, 'Bad Request', 'The request is malformed', 'invalid_request', false),
  CLIENT_CREDENTIALS_CONFLICT: entry(
    400,
    'Bad Request',
    'The client credentials were sent in more than one place and do not match',
    'invalid_request',
    false,
  ),
  UNSUPPORTED_GRANT_TYPE: entry(
    400,
    'Bad Request',
    "The 'grant_type' must be 'password' or 'refresh_token'",
    'unsupported_grant_type',
    false,
  ),
  // RFC 6749 5.2; only a form request can ask for a scope (docs/standard-oauth-clients.md).
  INVALID_SCOPE: entry(400, 'Bad Request', 'The requested scope is unknown: this service defines no scopes', 'invalid_scope', false),
  REFRESH_TOKEN_REQUIRED: entry(400, 'Bad Request', "The 'refresh_token' attribute is required", 'invalid_request', false),
  INVALID_REFRESH_TOKEN: entry(
    400,
    'Bad Request',
    'The refresh token is invalid, expired or revoked',
    'invalid_grant',
    false,
  ),
  TOKEN_REQUIRED: entry(400, 'Bad Request', "The 'token' attribute is required", 'invalid_request', false),
  TOKEN_NOT_ISSUED_TO_CLIENT: entry(
    400,
    'Bad Request',
    'The token was not issued to this client',
    'invalid_request',
    false,
  ),
  NOT_FOUND: entry(404, 'Not Found', 'The requested resource was not found', 'invalid_request', false),
  PAYLOAD_TOO_LARGE: entry(413, 'Payload Too Large', 'The request body is too large', 'invalid_request', false),
  // RFC 9112 6.1: a transfer coding the server does not understand is 501, not 400: `gzip, chunked` is valid HTTP
  // that this gateway does not decode, and forwarding it undecoded would hand the upstream bytes it was never told of.
  UNSUPPORTED_TRANSFER_CODING: entry(501, 'Not Implemented', "The request's Transfer-Encoding is not supported", 'invalid_request', false),
  // The shared store (Redis) cannot be reached, or the key ring is not loaded
  // yet: the request was fine, retry later (RFC 6749 temporarily_unavailable).
  SERVICE_UNAVAILABLE: entry(
    503,
    'Service Unavailable',
    'The service is temporarily unavailable, please retry later',
    'temporarily_unavailable',
    false,
  ),
  UPSTREAM_UNAVAILABLE: entry(502, 'Bad Gateway', 'The upstream service is unavailable', 'temporarily_unavailable', false),
  UPSTREAM_TIMEOUT: entry(
    504,
    'Gateway Timeout',
    'The upstream service did not respond in time',
    'temporarily_unavailable',
    false,
  ),
});

export type ErrorCode = keyof typeof catalogue;

/**
 * When a row is sent, where that is not plain from its code: the policy kind
 * or rule behind it, or the RFC section the choice follows. Printed beside
 * the row in docs/errors.md (`npm run docs`).
 */
export const CATALOGUE_NOTES: Readonly<Partial<Record<ErrorCode, string>>> = Object.freeze({
  REGEX_THREAT: '`regex-protection`',
  JSON_THREAT: '`json-threat`; also `limits.json_depth` on the token endpoints',
  SPIKE_ARREST: '`spike-arrest`',
  AUTHENTICATION_REQUIRED: 'default authentication failure',
  LOGIN_LOCKED: 'default authentication failure; brute force',
  IP_RANGE_FORBIDDEN: '`ip-range`',
  TIME_OF_DAY_FORBIDDEN: '`time-of-day`',
  UNSUPPORTED_GRANT_TYPE: 'RFC 6749 5.2',
  INVALID_REFRESH_TOKEN: 'RFC 6749 5.2',
  TOKEN_REQUIRED: 'RFC 7009 2.1',
  TOKEN_NOT_ISSUED_TO_CLIENT: 'RFC 7009 2.1',
  UNSUPPORTED_TRANSFER_CODING: 'RFC 9112 6.1: a `Transfer-Encoding` other than `chunked` alone; `Connection: close`',
  SERVICE_UNAVAILABLE: 'Redis unreachable, keys not loaded yet, password hashing saturated; `Retry-After: 1`',
});
