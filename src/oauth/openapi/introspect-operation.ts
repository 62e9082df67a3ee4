import { FORM_MEDIA_TYPE } from '../../http/form-body.js';
import { introspectEndpoint } from '../endpoints/introspect.js';
import { INTERNAL_ERROR_CASE, methodNotAllowed, policyCases } from './common-cases.js';
import { errorResponses, type ErrorCase } from './error-responses.js';
import { requestIdHeader } from './headers.js';
import { CLIENT_AUTHENTICATION } from './security.js';
import type { OpenApiObject } from './types.js';
import { headerRef, parameterRef, schemaRef } from './types.js';

/** Every error POST /oauth2/v1/introspect can answer, in the order the checks run. */
export const INTROSPECT_ERRORS: readonly ErrorCase[] = [
  { code: 'UNSUPPORTED_MEDIA_TYPE', when: 'A body declared as something other than a form (`application/x-www-form-urlencoded`, in UTF-8) or JSON, or a form or JSON body with a `Content-Encoding` other than `identity` (answered with `Accept-Encoding: identity`).' },
  {
    code: 'MALFORMED_REQUEST',
    when: 'A parameter header (`client_id`, `client_secret`, `token`) or a form parameter was sent more than once, or `token` differs between the header and the form.',
  },
  { code: 'MALFORMED_JSON_BODY', when: 'A body declared as `application/json` is not empty and not a JSON object.' },
  { code: 'JSON_THREAT', when: 'A JSON body nested deeper than `limits.json_depth`, or refused by a `json-threat` policy.' },
  { code: 'CLIENT_CREDENTIALS_REQUIRED', when: '`client_id` or `client_secret` is in none of HTTP Basic, the form, the headers and a JSON body.' },
  { code: 'CLIENT_CREDENTIALS_CONFLICT', when: '`client_id` or `client_secret` was sent in two places with different values.' },
  { code: 'TOKEN_REQUIRED', when: 'The `token` form parameter (or header) is missing or blank.' },
  { code: 'INVALID_CLIENT_CREDENTIALS', when: 'Unknown `client_id` or wrong `client_secret`; with HTTP Basic, a `WWW-Authenticate: Basic` challenge comes with it.' },
  { code: 'CLIENT_ACCOUNT_INVALID_STATE', when: 'The client credentials are right but the app is not active.' },
  ...policyCases({ apps: true }),
  methodNotAllowed(introspectEndpoint.methods),
  { code: 'PAYLOAD_TOO_LARGE', when: 'The body is larger than `limits.oauth_body_size` (16kb by default); the connection is closed.' },
  INTERNAL_ERROR_CASE,
  {
    code: 'SERVICE_UNAVAILABLE',
    when: 'The shared store (Redis) is unreachable or too slow, or the keys that verify an access token are not loaded yet: never a false `active: false`.',
  },
];

const INTROSPECT_DESCRIPTION = `RFC 7662, for resource servers that cannot verify the JWT themselves. RFC 7662's form (\`token\`, \`token_type_hint\`) is always accepted, with \`client_secret_basic\` or \`client_secret_post\`; so is the spec's style (\`client_id\`, \`client_secret\` and \`token\` as headers, no body). The caller must authenticate (RFC 7662 2.1).

**What the caller learns.** Every app learns about its own tokens. An app marked \`introspect: any\` in accounts.yaml (a resource server) learns about every client's access tokens. To any other app, another client's token is \`{"active": false}\`, exactly as an expired, revoked, unknown or forged one. A refresh token is answered to its own client only (\`token_type: refresh_token\`).`;

const ACTIVE_EXAMPLE = {
  active: true,
  token_type: 'Bearer',
  client_id: 'demo-app',
  username: 'demo-user',
  sub: 'demo-user',
  iss: 'https://api.example.com',
  aud: 'https://api.example.com',
  iat: 1795293012,
  exp: 1795294812,
  jti: 'Jq1w3Gk2bVxQyLrT8mZcYA',
};

export function introspectPathItem(): OpenApiObject {
  return {
    post: {
      operationId: 'introspectToken',
      tags: ['token service'],
      summary: 'Introspect an access token or a refresh token (RFC 7662)',
      description: INTROSPECT_DESCRIPTION,
      security: CLIENT_AUTHENTICATION,
      parameters: [
        {
          name: 'token',
          in: 'header',
          required: false,
          description: "The spec's style: the token to introspect as a header, instead of the form's `token`.",
          schema: { type: 'string', minLength: 1 },
        },
        parameterRef('X-Request-Id'),
      ],
      requestBody: {
        required: false,
        description: "RFC 7662's form; or none, with the spec's headers; or a JSON body carrying only the client credentials.",
        content: {
          [FORM_MEDIA_TYPE]: { schema: schemaRef('IntrospectionForm'), example: { token: 'eyJhbGciOiJFUzI1NiJ9...', token_type_hint: 'access_token' } },
          'application/json': { schema: schemaRef('RevocationRequest') },
        },
      },
      responses: {
        '200': {
          description: 'RFC 7662 2.2, always JSON: `active: false` alone, or the token\'s details.',
          headers: { ...requestIdHeader(), 'Cache-Control': headerRef('Cache-Control.no-store') },
          content: { 'application/json': { schema: schemaRef('IntrospectionResponse'), examples: { active: { value: ACTIVE_EXAMPLE }, inactive: { value: { active: false } } } } },
        },
        ...errorResponses(INTROSPECT_ERRORS, { oauth: true, methods: introspectEndpoint.methods }),
      },
    },
  };
}
