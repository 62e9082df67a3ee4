import { readFileSync } from 'node:fs';
import type { GatewayContext } from '../../context.js';
import { catalogue, type ErrorCode } from '../../errors/catalogue.js';
import { revokeEndpoint } from '../endpoints/revoke-token.js';
import { tokenEndpoint } from '../endpoints/token.js';
import { errorCodeSchema, errorCodeSchemaName, errorExamples } from './error-responses.js';
import { REQUEST_ID_PATTERN, SHARED_HEADERS } from './headers.js';
import { OPENAPI_PATH } from '../../config/paths.js';
import { INTROSPECT_ERRORS, introspectPathItem } from './introspect-operation.js';
import { introspectEndpoint } from '../endpoints/introspect.js';
import { DISCOVERY_ERRORS, JWKS_ERRORS, METADATA_ERRORS, OPENAPI_ERRORS, publicPathItems } from './public-operations.js';
import { REVOKE_ERRORS, revokePathItem } from './revoke-operation.js';
import { SCHEMAS } from './schemas.js';
import { SECURITY_SCHEMES } from './security.js';
import { TOKEN_ERRORS, tokenPathItem } from './token-operation.js';
import type { JsonSchema, OpenApiObject } from './types.js';

/**
 * The document's version is the release's: package.json, three levels above
 * this file in src/ and in dist/ (the image keeps it beside dist/). Read when
 * the document is built, so that a missing file costs the version, not the start.
 */
export function releaseVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

const DESCRIPTION = `The token service of token-gateway: OAuth 2.0 password and refresh grants, revocation, OpenID Connect discovery and the JWK Set (SPEC sections 4.1 to 4.5), with RFC 7662 introspection and RFC 8414 metadata beside them. Where the operator allows it (\`oauth.form_encoded\`), the token and revocation endpoints also take the RFC 6749 / RFC 7009 form bodies that standard OAuth 2.0 libraries send; this document then lists them. Protected API routes are configured per deployment and are not described here. Paths served with GET also answer HEAD.

**Errors.** Every error is the reference service's envelope \`{success:false, requestId, errors:[{errorCode, errorType, message}]}\`; the token and revocation endpoints add RFC 6749 \`error\` and \`error_description\`. \`errorCode\` values are stable: switch on them, not on messages. Each response lists the codes it can carry, with the exact message and when it happens (also as \`x-error-codes\`). Errors are JSON, or XML (\`<ErrorResponse>\`) when \`Accept\` prefers \`application/xml\` or \`text/xml\`, and carry \`Cache-Control: no-store\`. Policy refusals (regex-protection, json-threat, spike-arrest, ip-range, time-of-day) happen only where an operator attaches a policy of that kind.

**Statuses not listed.** Node's HTTP parser answers some requests before the gateway sees them, without an envelope: a malformed request line or headers (400), headers over 16 KiB (431), a client too slow to send its request (408, or a closed connection). \`500 INTERNAL_ERROR\` is listed everywhere because any unexpected failure becomes it, though no request causes it on purpose.

This document is generated from the gateway's error catalogue, once per gateway, and a test sends a real request for every status and \`errorCode\` it lists and checks the answer against it.`;

/** Which codes each path lists: the components hold one schema and one example per code used anywhere. */
const OPERATION_ERRORS = [
  { cases: TOKEN_ERRORS, oauth: true },
  { cases: REVOKE_ERRORS, oauth: true },
  { cases: INTROSPECT_ERRORS, oauth: true },
  { cases: DISCOVERY_ERRORS, oauth: false },
  { cases: METADATA_ERRORS, oauth: false },
  { cases: JWKS_ERRORS, oauth: false },
  { cases: OPENAPI_ERRORS, oauth: false },
];

function errorCodeSchemas(): Record<string, JsonSchema> {
  const used = new Set<ErrorCode>(OPERATION_ERRORS.flatMap(({ cases }) => cases.map((errorCase) => errorCase.code)));
  const ordered = (Object.keys(catalogue) as ErrorCode[]).filter((code) => used.has(code));
  return Object.fromEntries(ordered.map((code) => [errorCodeSchemaName(code), errorCodeSchema(code)]));
}

/**
 * The OpenAPI 3.1 document of the token service, for one gateway: its
 * `servers` entry is the issuer, the URL clients use for this environment
 * and region (SPEC 1), and the discovery example is the live metadata.
 */
export function buildOpenApiDocument(ctx: GatewayContext): OpenApiObject {
  return {
    openapi: '3.1.0',
    info: {
      title: 'token-gateway token service',
      version: releaseVersion(),
      summary: 'OAuth 2.0 / OpenID Connect token service (password and refresh grants, revocation, introspection, discovery, keys)',
      description: DESCRIPTION,
    },
    servers: [{ url: ctx.issuer, description: 'The issuer of this environment and region.' }],
    tags: [
      { name: 'token service', description: 'Issuing, revoking and introspecting tokens: client credentials required.' },
      { name: 'metadata', description: 'Public documents: no authentication.' },
    ],
    paths: {
      [tokenEndpoint.path]: tokenPathItem(ctx),
      [revokeEndpoint.path]: revokePathItem(ctx),
      [introspectEndpoint.path]: introspectPathItem(),
      ...publicPathItems(ctx, OPENAPI_PATH),
    },
    components: {
      schemas: { ...SCHEMAS, ...errorCodeSchemas() },
      headers: SHARED_HEADERS,
      examples: errorExamples(OPERATION_ERRORS),
      parameters: {
        'X-Request-Id': {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description: 'Your own request id, kept when it is 8 to 128 characters of `A-Z a-z 0-9 . _ : -`; otherwise the gateway generates one.',
          schema: { type: 'string', pattern: REQUEST_ID_PATTERN },
        },
      },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
