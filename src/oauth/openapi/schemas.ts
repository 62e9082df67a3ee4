import { catalogue } from '../../errors/catalogue.js';
import type { JsonSchema } from './types.js';
import { schemaRef } from './types.js';

/** Three base64url parts: a compact JWS (RFC 7515 7.1). */
const COMPACT_JWS = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$';
const DIGITS = '^[0-9]+$';
const BASE64URL = '^[A-Za-z0-9_-]+$';
const BASE64URL_STRING: JsonSchema = { type: 'string', pattern: BASE64URL };

const RFC6749_ERRORS = [...new Set(Object.values(catalogue).map((entry) => entry.oauthError))].sort();

const string = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });

/** SPEC 2.1, field for field; the same for both grants (rule 4). */
const tokenResponse: JsonSchema = {
  type: 'object',
  description: 'SPEC 2.1: the response of both grants. `issued_at` and `expires_in` are digit strings, as in the reference service.',
  required: ['issued_at', 'expires_in', 'token_type', 'access_token', 'refresh_token'],
  additionalProperties: false,
  properties: {
    issued_at: string('When the token was issued: milliseconds since the epoch, 13 digits.', { pattern: DIGITS }),
    expires_in: string('Seconds until the access token expires: `tokens.access_ttl`, "1800" by default.', { pattern: DIGITS }),
    token_type: string('Always Bearer.', { const: 'Bearer' }),
    access_token: string('An RFC 9068 JWT (`typ: at+jwt`), verifiable with the keys of /oauth2/v1/keys; send it as `Authorization: Bearer <access_token>`.', {
      pattern: COMPACT_JWS,
    }),
    refresh_token: string('Opaque; used up by its first exchange (rotation), a retry within the grace window answered with the same successor. Header-safe characters only, since it is sent back in a header.', {
      pattern: '^[A-Za-z0-9._-]+$',
    }),
  },
  xml: { name: 'TokenResponse' },
};

const passwordGrantRequest: JsonSchema = {
  type: 'object',
  description:
    'SPEC 4.3. `username` and `password` are required (missing, blank or not a string: 400 `USER_CREDENTIALS_REQUIRED`). `client_id` and `client_secret` may be sent here, as headers or with HTTP Basic instead. Other members are ignored.',
  required: ['username', 'password'],
  properties: {
    username: string('Developer login name.', { minLength: 1 }),
    password: string('Developer password.', { minLength: 1, format: 'password' }),
    client_id: string('The application\'s id, if not sent as a header or with HTTP Basic.'),
    client_secret: string('The application\'s secret, if not sent as a header or with HTTP Basic.', { format: 'password' }),
  },
};

/**
 * RFC 6749 4.3.2 and 6: the form standard OAuth 2.0 libraries send, served
 * where the operator allows forms (docs/standard-oauth-clients.md).
 */
const tokenForm: JsonSchema = {
  type: 'object',
  description:
    'RFC 6749 4.3.2 (password) or 6 (refresh), accepted where `oauth.form_encoded` (or the app\'s own `apps[].form_encoded`) allows forms; otherwise 415. Each parameter at most once (RFC 6749 3.1). A parameter also sent as the spec\'s header must have the same value. Other parameters are ignored.',
  properties: {
    grant_type: string('`password` or `refresh_token`; absent means `password`, as for the spec\'s header.', { enum: ['password', 'refresh_token'] }),
    username: string('Password grant: the developer login name.', { minLength: 1 }),
    password: string('Password grant: the developer password.', { minLength: 1, format: 'password' }),
    refresh_token: string('Refresh grant: the refresh token previously issued.'),
    scope: string('Must be absent or blank: no scope is defined (`INVALID_SCOPE` otherwise).', { pattern: '^\\s*$' }),
    client_id: string('`client_secret_post`: the application\'s id, if not sent with HTTP Basic or as a header.'),
    client_secret: string('`client_secret_post`: the application\'s secret.', { format: 'password' }),
  },
};

/** RFC 7009 2.1, where forms are allowed; RFC 7662 2.1, always. */
const tokenReferenceForm = (description: string): JsonSchema => ({
  type: 'object',
  description,
  properties: {
    token: string('The token; if the `token` header is sent too, it must be the same.', { minLength: 1 }),
    token_type_hint: string('Optional and not needed: both kinds are recognised (RFC 7009 2.2.1).', { enum: ['access_token', 'refresh_token'] }),
    client_id: string('`client_secret_post`: the application\'s id.'),
    client_secret: string('`client_secret_post`: the application\'s secret.', { format: 'password' }),
  },
});

/** RFC 7662 2.2: the answer for an inactive token is `active: false` and nothing else. */
const introspectionResponse: JsonSchema = {
  type: 'object',
  description:
    'RFC 7662 2.2. `active: false` alone for a token that is expired, revoked, unknown, malformed, or that the caller may not learn about (another client\'s, unless the caller is marked `introspect: any`). Always JSON.',
  oneOf: [
    { type: 'object', required: ['active'], additionalProperties: false, properties: { active: { const: false } } },
    {
      type: 'object',
      required: ['active', 'token_type', 'client_id', 'username', 'sub', 'iss', 'iat', 'exp'],
      additionalProperties: false,
      properties: {
        active: { const: true },
        token_type: string('`Bearer` for an access token, `refresh_token` for a refresh token (answered to its own client only).', { enum: ['Bearer', 'refresh_token'] }),
        client_id: string('The app the token was issued to.'),
        username: string('The developer account (SPEC 2.2).'),
        sub: string('The same as `username`.'),
        iss: string('The issuer.', { format: 'uri' }),
        aud: string('Access tokens: the audience (`tokens.audience`).'),
        iat: { type: 'integer', description: 'Issued at, seconds since the epoch.' },
        exp: { type: 'integer', description: 'Expires at, seconds since the epoch.' },
        jti: string('Access tokens: the token\'s id.'),
      },
    },
  ],
};

const revocationRequest: JsonSchema = {
  type: 'object',
  description: 'Optional: the client credentials may travel in a JSON body instead of headers. The token itself is always the `token` header.',
  properties: {
    client_id: string('The application\'s id.'),
    client_secret: string('The application\'s secret.', { format: 'password' }),
  },
};

const revocationResponse: JsonSchema = {
  type: 'object',
  description: 'SPEC 4.5 shows no body; RFC 7009 says clients ignore it. Also the answer for an unknown, invalid or expired token (RFC 7009 2.2).',
  required: ['success', 'requestId'],
  additionalProperties: false,
  properties: {
    success: { type: 'boolean', const: true },
    requestId: string('The X-Request-Id of this exchange.'),
  },
  xml: { name: 'RevocationResponse' },
};

const errorItem: JsonSchema = {
  type: 'object',
  required: ['errorCode', 'errorType', 'message'],
  additionalProperties: false,
  properties: {
    errorCode: string('Stable: switch on it, not on the message.', { pattern: '^[A-Z][A-Z_]*$' }),
    errorType: string('The HTTP reason phrase of the status.'),
    message: string('The message of the SPEC 7 row (or of the gateway\'s own row where the spec shows none).'),
  },
  xml: { name: 'error' },
};

const envelopeProperties: Record<string, JsonSchema> = {
  success: { type: 'boolean', const: false },
  requestId: string('The X-Request-Id of this exchange: quote it when asking for support.'),
  errors: {
    type: 'array',
    description: 'One entry today; read `errors[0]`, and tolerate more.',
    minItems: 1,
    items: schemaRef('ErrorItem'),
    xml: { wrapped: true },
  },
};

/** The reference service's error envelope: every error of every path. */
const errorEnvelope: JsonSchema = {
  type: 'object',
  required: ['success', 'requestId', 'errors'],
  additionalProperties: false,
  properties: envelopeProperties,
  xml: { name: 'ErrorResponse' },
};

/** The token and revocation endpoints add RFC 6749 5.2 members, so standard OAuth libraries show the reason. */
const oauthErrorEnvelope: JsonSchema = {
  type: 'object',
  description: 'The error envelope of the token and revocation endpoints: the reference service\'s members plus RFC 6749 5.2 `error` and `error_description`.',
  required: ['success', 'requestId', 'errors', 'error', 'error_description'],
  additionalProperties: false,
  properties: {
    ...envelopeProperties,
    error: string('RFC 6749 5.2 error code.', { enum: RFC6749_ERRORS }),
    error_description: string('The same text as `errors[0].message`.'),
  },
  xml: { name: 'ErrorResponse' },
};

const authMethodList = (description: string): JsonSchema => ({
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  description,
  items: { enum: ['client_secret_basic', 'client_secret_post'] },
});

/** OpenID Connect Discovery 1.0 section 3 / RFC 8414 section 2: what src/oauth/endpoints/discovery.ts publishes. */
const providerMetadata: JsonSchema = {
  type: 'object',
  required: [
    'issuer',
    'token_endpoint',
    'jwks_uri',
    'revocation_endpoint',
    'introspection_endpoint',
    'grant_types_supported',
    'response_types_supported',
    'subject_types_supported',
    'id_token_signing_alg_values_supported',
    'scopes_supported',
    'token_endpoint_auth_methods_supported',
    'revocation_endpoint_auth_methods_supported',
    'introspection_endpoint_auth_methods_supported',
    'claims_supported',
  ],
  additionalProperties: false,
  properties: {
    issuer: string('The `iss` of every token; the base of every URL below.', { format: 'uri' }),
    token_endpoint: string('POST /oauth2/v1/token.', { format: 'uri' }),
    jwks_uri: string('GET /oauth2/v1/keys.', { format: 'uri' }),
    revocation_endpoint: string('POST /oauth2/v1/revokeToken.', { format: 'uri' }),
    introspection_endpoint: string('POST /oauth2/v1/introspect (RFC 7662).', { format: 'uri' }),
    grant_types_supported: { type: 'array', items: { enum: ['password', 'refresh_token'] } },
    response_types_supported: {
      type: 'array',
      maxItems: 0,
      description: 'Empty: a two-legged flow has no authorization endpoint, but both specifications require the member.',
    },
    subject_types_supported: { type: 'array', items: { const: 'public' } },
    id_token_signing_alg_values_supported: { type: 'array', minItems: 1, items: { enum: ['ES256', 'RS256', 'PS256', 'EdDSA'] } },
    scopes_supported: { type: 'array', maxItems: 0, description: 'Empty: no scope is defined, and a request for one is refused with `invalid_scope`.' },
    token_endpoint_auth_methods_supported: authMethodList(
      '`client_secret_basic` always; `client_secret_post` (credentials in a form body) only while some app may send forms (`oauth.form_encoded`, `apps[].form_encoded`).',
    ),
    revocation_endpoint_auth_methods_supported: authMethodList('As for the token endpoint.'),
    introspection_endpoint_auth_methods_supported: authMethodList('Both: introspection always reads RFC 7662 forms.'),
    claims_supported: { type: 'array', items: { type: 'string' } },
  },
};

const jwkCommon = {
  kid: string('RFC 7638 thumbprint of the key.', { pattern: BASE64URL }),
  use: { type: 'string', const: 'sig' },
};

/** Public members only: a JWK with a private member (`d`, `p`, ...) does not validate. */
const jwk = (kty: string, alg: JsonSchema, members: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  required: ['kty', 'kid', 'alg', 'use', ...Object.keys(members)],
  additionalProperties: false,
  properties: { kty: { type: 'string', const: kty }, alg, ...jwkCommon, ...members },
});

const jwkSet: JsonSchema = {
  type: 'object',
  description:
    'RFC 7517 JWK Set. Keys are generated and rotated by the gateway (SPEC 4.2): each is published a whole rotation interval before it signs and stays until every token it signed has expired. Fetch again on an unknown `kid`.',
  required: ['keys'],
  additionalProperties: false,
  properties: {
    keys: {
      type: 'array',
      items: {
        oneOf: [
          jwk('EC', { type: 'string', const: 'ES256' }, { crv: { type: 'string', const: 'P-256' }, x: BASE64URL_STRING, y: BASE64URL_STRING }),
          jwk('RSA', { type: 'string', enum: ['RS256', 'PS256'] }, { n: BASE64URL_STRING, e: BASE64URL_STRING }),
          jwk('OKP', { type: 'string', const: 'EdDSA' }, { crv: { type: 'string', const: 'Ed25519' }, x: BASE64URL_STRING }),
        ],
      },
    },
  },
};

const openApiDocument: JsonSchema = {
  type: 'object',
  description: 'This document.',
  required: ['openapi', 'info', 'paths'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.[0-9]+$' },
    info: { type: 'object', required: ['title', 'version'], properties: { title: { type: 'string' }, version: { type: 'string' } } },
    paths: { type: 'object' },
  },
};

/** components.schemas, apart from the one schema per error code (error-responses.ts). */
export const SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  TokenResponse: tokenResponse,
  PasswordGrantRequest: passwordGrantRequest,
  TokenForm: tokenForm,
  RevocationRequest: revocationRequest,
  RevocationForm: tokenReferenceForm(
    'RFC 7009 2.1, accepted where `oauth.form_encoded` (or the app\'s own `apps[].form_encoded`) allows forms; from an app not allowed forms the form is ignored, as any other body. Each parameter at most once.',
  ),
  RevocationResponse: revocationResponse,
  IntrospectionForm: tokenReferenceForm('RFC 7662 2.1: always accepted, whatever `oauth.form_encoded` says. Each parameter at most once.'),
  IntrospectionResponse: introspectionResponse,
  ErrorItem: errorItem,
  ErrorEnvelope: errorEnvelope,
  OAuthErrorEnvelope: oauthErrorEnvelope,
  ProviderMetadata: providerMetadata,
  JwkSet: jwkSet,
  OpenApiDocument: openApiDocument,
};
