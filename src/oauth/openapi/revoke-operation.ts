import type { GatewayContext } from '../../context.js';
import { FORM_MEDIA_TYPE } from '../../http/form-body.js';
import { toXmlDocument } from '../../http/xml.js';
import { revokeEndpoint } from '../endpoints/revoke-token.js';
import { formsAccepted } from '../form-encoding.js';
import { INTERNAL_ERROR_CASE, methodNotAllowed, policyCases } from './common-cases.js';
import { errorResponses, type ErrorCase } from './error-responses.js';
import { requestIdHeader } from './headers.js';
import { CLIENT_AUTHENTICATION } from './security.js';
import type { OpenApiObject } from './types.js';
import { headerRef, parameterRef, schemaRef } from './types.js';

/** Every error POST /oauth2/v1/revokeToken can answer. */
export const REVOKE_ERRORS: readonly ErrorCase[] = [
  {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    when: 'A JSON body (or, where forms are allowed, a form) with a `Content-Encoding` other than `identity`, answered with `Accept-Encoding: identity`; any other body is drained unread, coded or not.',
  },
  {
    code: 'MALFORMED_REQUEST',
    when: 'A parameter header (`client_id`, `client_secret`, `token`) was sent more than once; or, in a form from an app allowed forms, a parameter was sent more than once or `token` differs from the `token` header.',
  },
  { code: 'MALFORMED_JSON_BODY', when: 'A body declared as `application/json` is not empty and not a JSON object.' },
  { code: 'JSON_THREAT', when: 'A JSON body nested deeper than `limits.json_depth`, or refused by a `json-threat` policy.' },
  { code: 'CLIENT_CREDENTIALS_REQUIRED', when: '`client_id` or `client_secret` is in none of the headers, HTTP Basic and a JSON body.' },
  { code: 'CLIENT_CREDENTIALS_CONFLICT', when: '`client_id` or `client_secret` was sent in two places with different values.' },
  { code: 'TOKEN_REQUIRED', when: 'The `token` header (or, where forms are allowed, form parameter) is missing or blank.' },
  { code: 'INVALID_CLIENT_CREDENTIALS', when: 'Unknown `client_id` or wrong `client_secret`; with HTTP Basic, a `WWW-Authenticate: Basic` challenge comes with it.' },
  { code: 'CLIENT_ACCOUNT_INVALID_STATE', when: 'The client credentials are right but the app is not active.' },
  { code: 'TOKEN_NOT_ISSUED_TO_CLIENT', when: 'A valid token issued to another client (RFC 7009 2.1); it stays valid.' },
  ...policyCases({ apps: true }),
  methodNotAllowed(revokeEndpoint.methods),
  { code: 'PAYLOAD_TOO_LARGE', when: 'The body is larger than `limits.oauth_body_size` (16kb by default); the connection is closed.' },
  INTERNAL_ERROR_CASE,
  {
    code: 'SERVICE_UNAVAILABLE',
    when: 'The shared store (Redis) is unreachable or too slow, or the keys that verify an access token are not loaded yet. The revocation may still take effect; retrying is harmless.',
  },
];

const REVOKE_DESCRIPTION = `SPEC 4.5, RFC 7009. The token to revoke is the \`token\` header: a refresh token ends its whole grant (the refresh token and every access token issued from the same login); an access token is refused from then on. An unknown, invalid or expired token is also 200 (RFC 7009 2.2: there is nothing to revoke). No body or Content-Type is needed; a JSON body may carry the client credentials. Where the operator allows forms (\`oauth.form_encoded\`, \`apps[].form_encoded\`), RFC 7009's form is read too (\`token\`, \`token_type_hint\`, \`client_secret_post\`); from an app not allowed forms a form is ignored, like any other body.`;

export function revokePathItem(ctx: GatewayContext): OpenApiObject {
  const bodies: OpenApiObject = { 'application/json': { schema: schemaRef('RevocationRequest') } };
  if (formsAccepted(ctx)) bodies[FORM_MEDIA_TYPE] = { schema: schemaRef('RevocationForm'), example: { token: 'q3ZtR0b1mX9aP2kLw8sVxA.KPwO4y7nT1cJ5dZr8bQeHf2uG6iM0lNoSaVtWxYzEkD', token_type_hint: 'refresh_token' } };
  const revoked = { success: true, requestId: '6f0c2b1e-8d4a-4c3e-9b7f-2a5d1e0c9f84' };
  return {
    post: {
      operationId: 'revokeToken',
      tags: ['token service'],
      summary: 'Revoke an access token or a refresh token',
      description: REVOKE_DESCRIPTION,
      security: CLIENT_AUTHENTICATION,
      parameters: [
        {
          name: 'token',
          in: 'header',
          required: false,
          description: 'The refresh token or access token to revoke; the gateway tells them apart (no `token_type_hint`). Required, unless a form allowed forms names the token.',
          schema: { type: 'string', minLength: 1 },
        },
        parameterRef('X-Request-Id'),
      ],
      requestBody: {
        required: false,
        description: 'Optional: the client credentials, if not sent as headers or with HTTP Basic; or RFC 7009\'s form where forms are allowed.',
        content: bodies,
      },
      responses: {
        '200': {
          description: 'Revoked, or nothing to revoke. JSON by default; XML when `Accept` prefers `application/xml` or `text/xml`.',
          headers: { ...requestIdHeader(), 'Cache-Control': headerRef('Cache-Control.no-store') },
          content: {
            'application/json': { schema: schemaRef('RevocationResponse'), example: revoked },
            'application/xml': { schema: schemaRef('RevocationResponse'), example: toXmlDocument('RevocationResponse', revoked) },
          },
        },
        ...errorResponses(REVOKE_ERRORS, { oauth: true, methods: revokeEndpoint.methods }),
      },
    },
  };
}
