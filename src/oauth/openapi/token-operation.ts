import type { GatewayContext } from '../../context.js';
import { FORM_MEDIA_TYPE } from '../../http/form-body.js';
import { toXmlDocument } from '../../http/xml.js';
import { tokenEndpoint } from '../endpoints/token.js';
import { formsAccepted } from '../form-encoding.js';
import { INTERNAL_ERROR_CASE, methodNotAllowed, policyCases } from './common-cases.js';
import { errorResponses, type ErrorCase } from './error-responses.js';
import { requestIdHeader } from './headers.js';
import { CLIENT_AUTHENTICATION } from './security.js';
import type { OpenApiObject } from './types.js';
import { headerRef, parameterRef, schemaRef } from './types.js';

/** Every error POST /oauth2/v1/token can answer, in the order the checks run (SPEC 7 order of blame). */
export const TOKEN_ERRORS: readonly ErrorCase[] = [
  {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    when: 'Content-Type is missing or not `application/json` (parameters such as `; charset=utf-8` are fine), for both grants; a form (`application/x-www-form-urlencoded`) is accepted only from an app allowed forms (`oauth.form_encoded`, `apps[].form_encoded`), and only in UTF-8. A body with a `Content-Encoding` other than `identity` is refused too (answered with `Accept-Encoding: identity`): nothing is inflated.',
  },
  { code: 'UNSUPPORTED_GRANT_TYPE', when: 'The `grant_type` header (or form parameter) is neither `password` nor `refresh_token`.' },
  {
    code: 'MALFORMED_REQUEST',
    when: 'A parameter header (`client_id`, `client_secret`, `grant_type`, `refresh_token`) was sent more than once; a form parameter was sent more than once (RFC 6749 3.1); or `grant_type` or `refresh_token` is in a header and in the form with different values.',
  },
  { code: 'MALFORMED_JSON_BODY', when: 'The body is not empty and not a JSON object.' },
  { code: 'JSON_THREAT', when: 'The body is nested deeper than `limits.json_depth`, or a `json-threat` policy refused it.' },
  { code: 'CLIENT_CREDENTIALS_REQUIRED', when: '`client_id` or `client_secret` is in none of the body, the headers and HTTP Basic.' },
  { code: 'CLIENT_CREDENTIALS_CONFLICT', when: '`client_id` or `client_secret` was sent in two places with different values.' },
  { code: 'USER_CREDENTIALS_REQUIRED', when: 'Password grant: `username` or `password` is missing, blank or not a string.' },
  { code: 'REFRESH_TOKEN_REQUIRED', when: 'Refresh grant: the `refresh_token` header (or form parameter) is missing or blank.' },
  { code: 'INVALID_SCOPE', when: 'A form asks for a `scope`: none is defined (RFC 6749 5.2 `invalid_scope`).' },
  { code: 'INVALID_CLIENT_CREDENTIALS', when: 'Unknown `client_id` or wrong `client_secret`; with HTTP Basic, a `WWW-Authenticate: Basic` challenge comes with it.' },
  { code: 'CLIENT_ACCOUNT_INVALID_STATE', when: 'The client credentials are right but the app is not active.' },
  { code: 'LOGIN_LOCKED', when: 'Password grant: too many failed passwords for this username or from this address (`brute_force`); the password is not checked.' },
  { code: 'INVALID_USER_CREDENTIALS', when: 'Password grant: unknown username or wrong password.' },
  { code: 'USER_ACCOUNT_INVALID_STATE', when: 'The user is not active: right username and password, or a refresh token of a user suspended since.' },
  {
    code: 'INVALID_REFRESH_TOKEN',
    when: 'Refresh grant: the refresh token is unknown, expired, revoked, issued to another client, or already used (which also revokes its whole grant).',
  },
  ...policyCases({ apps: true }),
  methodNotAllowed(tokenEndpoint.methods),
  { code: 'PAYLOAD_TOO_LARGE', when: 'The body is larger than `limits.oauth_body_size` (16kb by default); the connection is closed.' },
  INTERNAL_ERROR_CASE,
  {
    code: 'SERVICE_UNAVAILABLE',
    when: 'The shared store (Redis) is unreachable or too slow, the signing keys are not loaded yet, or password hashing is saturated. Nothing was issued; retry after `Retry-After`.',
  },
];

const EXAMPLE_TOKENS = {
  issued_at: '1795293012282',
  expires_in: '1800',
  token_type: 'Bearer',
  access_token: 'eyJhbGciOiJFUzI1NiIsImtpZCI6IkNfWGZRIiwidHlwIjoiYXQrand0In0.eyJpc3MiOiJodHRwczovL2FwaS5leGFtcGxlLmNvbSIsInN1YiI6ImFsaWNlIn0.c2lnbmF0dXJl',
  refresh_token: 'q3ZtR0b1mX9aP2kLw8sVxA.KPwO4y7nT1cJ5dZr8bQeHf2uG6iM0lNoSaVtWxYzEkD',
};

const TOKEN_DESCRIPTION = `Two request shapes share this operation (SPEC 4.3 and 4.4):

- **Password grant**: a JSON body with \`username\` and \`password\` (and the client credentials, unless they come as headers or HTTP Basic). The \`grant_type\` header is optional; absent means \`password\`.
- **Refresh grant**: no body; every parameter is a header: \`grant_type: refresh_token\`, \`refresh_token\`, and the client credentials. \`Content-Type: application/json\` is still required.

Client credentials may be sent in any one of three places: the JSON body, the \`client_id\` / \`client_secret\` headers, or HTTP Basic (RFC 6749 2.3.1); two places that disagree are refused.

**Standard OAuth 2.0 forms.** Where the operator allows them (gateway.yaml \`oauth.form_encoded\`, accounts.yaml \`apps[].form_encoded\`), the same operation also takes RFC 6749's \`application/x-www-form-urlencoded\` requests (4.3.2 password, 6 refresh), with \`client_secret_basic\` or \`client_secret_post\`: the same token response and the same errors. When no app may use forms, this document does not list the form body, and a form is 415.

Checks run in order of blame: the content type (415), the request's shape (400: client credentials first, then the grant's own parameters), the client's credentials (401), the app's status (401), the user's credentials (401), then the user's status (401). Refresh tokens rotate: each exchange returns a new one and uses the presented one up. Presenting a used one again within the grace window (\`tokens.refresh_grace\`, 30 s by default), before its successor is used, is a retry: the answer is the same new refresh token and a new access token of the same grant. Any other presentation of a used one revokes the whole grant.`;

/** The request bodies this configuration accepts: the spec's JSON always, RFC 6749's form where some app may send one. */
function tokenRequestBodies(ctx: GatewayContext): OpenApiObject {
  const json = {
    'application/json': {
      schema: schemaRef('PasswordGrantRequest'),
      example: { username: 'demo-user', password: 'demo-password', client_id: 'demo-app', client_secret: 'demo-app-secret' },
    },
  };
  if (!formsAccepted(ctx)) return json;
  return { ...json, [FORM_MEDIA_TYPE]: { schema: schemaRef('TokenForm'), example: { grant_type: 'password', username: 'demo-user', password: 'demo-password' } } };
}

export function tokenPathItem(ctx: GatewayContext): OpenApiObject {
  return {
    post: {
      operationId: 'issueToken',
      tags: ['token service'],
      summary: 'Issue an access token and a refresh token (password or refresh grant)',
      description: TOKEN_DESCRIPTION,
      security: CLIENT_AUTHENTICATION,
      parameters: [
        {
          name: 'grant_type',
          in: 'header',
          required: false,
          description: 'SPEC 4.3: optional for the password grant (absent means `password`); SPEC 4.4: `refresh_token` for the refresh grant. In a form request it may be a form parameter instead.',
          schema: { type: 'string', enum: ['password', 'refresh_token'] },
        },
        {
          name: 'refresh_token',
          in: 'header',
          required: false,
          description: 'Refresh grant only (required there): the refresh token previously issued.',
          schema: { type: 'string' },
        },
        parameterRef('X-Request-Id'),
      ],
      requestBody: {
        required: false,
        description: 'Password grant: required. Refresh grant: none (every parameter is a header), or the RFC 6749 form where forms are allowed.',
        content: tokenRequestBodies(ctx),
      },
      responses: {
        '200': {
          description: 'A new access token and a new refresh token, for both grants (SPEC 2.1). JSON by default; XML when `Accept` prefers `application/xml` or `text/xml`.',
          headers: {
            ...requestIdHeader(),
            'Cache-Control': headerRef('Cache-Control.no-store'),
            Pragma: { description: 'RFC 6749 5.1.', required: true, schema: { type: 'string', const: 'no-cache' } },
          },
          content: {
            'application/json': { schema: schemaRef('TokenResponse'), example: EXAMPLE_TOKENS },
            'application/xml': { schema: schemaRef('TokenResponse'), example: toXmlDocument('TokenResponse', EXAMPLE_TOKENS) },
          },
        },
        ...errorResponses(TOKEN_ERRORS, { oauth: true, methods: tokenEndpoint.methods }),
      },
    },
  };
}
