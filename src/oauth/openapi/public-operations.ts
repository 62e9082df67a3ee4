import type { GatewayContext } from '../../context.js';
import { DISCOVERY_CACHE_CONTROL, discoveryEndpoint, providerMetadata } from '../endpoints/discovery.js';
import { authorizationServerMetadataEndpoint } from '../endpoints/authorization-server-metadata.js';
import { jwksEndpoint } from '../endpoints/jwks.js';
import { INTERNAL_ERROR_CASE, methodNotAllowed, policyCases, PUBLIC_PATH_BODY_CASES } from './common-cases.js';
import { errorResponses, type ErrorCase } from './error-responses.js';
import { requestIdHeader } from './headers.js';
import { OPENAPI_CACHE_CONTROL, OPENAPI_MEDIA_TYPE, OPENAPI_METHODS, serviceDescLink } from './location.js';
import type { OpenApiObject } from './types.js';
import { parameterRef, schemaRef } from './types.js';

/** Errors of the public GET paths: they take no input, so only policies, the method and defects can fail them. */
const publicPathErrors = (methods: readonly string[], extra: ErrorCase[] = []): ErrorCase[] => [
  ...PUBLIC_PATH_BODY_CASES,
  ...policyCases({ apps: false }),
  methodNotAllowed(methods),
  INTERNAL_ERROR_CASE,
  ...extra,
];

export const DISCOVERY_ERRORS = publicPathErrors(discoveryEndpoint.methods);
export const METADATA_ERRORS = publicPathErrors(authorizationServerMetadataEndpoint.methods);
export const JWKS_ERRORS = publicPathErrors(jwksEndpoint.methods, [
  {
    code: 'SERVICE_UNAVAILABLE',
    when: 'The key ring is not loaded yet (the shared store has not been reached since start); an empty set would make every token look forged.',
  },
]);
export const OPENAPI_ERRORS = publicPathErrors(OPENAPI_METHODS);

const NO_AUTHENTICATION: readonly OpenApiObject[] = [];

const cacheControl = (description: string, schema: OpenApiObject): OpenApiObject => ({ description, required: true, schema: { type: 'string', ...schema } });

const EXAMPLE_JWKS = {
  keys: [
    {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
      kid: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
      alg: 'ES256',
      use: 'sig',
    },
  ],
};

/** The two well-known paths serve one document: OpenID Connect Discovery's (SPEC 4.1) and RFC 8414's. */
const METADATA_OPERATIONS = {
  discovery: {
    operationId: 'openidConfiguration',
    summary: 'OpenID provider configuration (SPEC 4.1)',
    description:
      'OpenID Connect Discovery 1.0 / RFC 8414 metadata: the issuer, the endpoints, the signing algorithm, and the client authentication methods this configuration accepts. Also answers HEAD. Always JSON.',
    errors: DISCOVERY_ERRORS,
    methods: discoveryEndpoint.methods,
  },
  rfc8414: {
    operationId: 'authorizationServerMetadata',
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
    description: 'The same document as /.well-known/openid-configuration, where OAuth 2.0 clients look for it (RFC 8414 3). Also answers HEAD. Always JSON.',
    errors: METADATA_ERRORS,
    methods: authorizationServerMetadataEndpoint.methods,
  },
};

function metadataPathItem(ctx: GatewayContext, which: keyof typeof METADATA_OPERATIONS): OpenApiObject {
  const { operationId, summary, description, errors, methods } = METADATA_OPERATIONS[which];
  return {
    get: {
      operationId,
      tags: ['metadata'],
      summary,
      description,
      security: NO_AUTHENTICATION,
      parameters: [parameterRef('X-Request-Id')],
      responses: {
        '200': {
          description: 'The provider metadata.',
          headers: {
            ...requestIdHeader(),
            'Cache-Control': cacheControl('Metadata changes only with configuration.', { const: DISCOVERY_CACHE_CONTROL }),
            Link: {
              description: 'RFC 8631: where this OpenAPI document is (`rel="service-desc"`).',
              required: true,
              schema: { type: 'string', const: serviceDescLink(ctx.issuer) },
            },
          },
          content: { 'application/json': { schema: schemaRef('ProviderMetadata'), example: providerMetadata(ctx) } },
        },
        ...errorResponses(errors, { oauth: false, methods }),
      },
    },
  };
}

function jwksPathItem(): OpenApiObject {
  return {
    get: {
      operationId: 'keys',
      tags: ['metadata'],
      summary: 'Public keys that verify access tokens (SPEC 4.2, RFC 7517)',
      description: 'The JWK Set of the key ring; the `jwks_uri` of the discovery document. Also answers HEAD.',
      security: NO_AUTHENTICATION,
      parameters: [parameterRef('X-Request-Id')],
      responses: {
        '200': {
          description: 'The public keys: each with `kid`, `alg` and `use: sig`, never a private member.',
          headers: {
            ...requestIdHeader(),
            'Cache-Control': cacheControl('Five minutes, and never more than half a rotation interval.', { pattern: '^public, max-age=[0-9]+$' }),
          },
          content: { 'application/jwk-set+json': { schema: schemaRef('JwkSet'), example: EXAMPLE_JWKS } },
        },
        ...errorResponses(JWKS_ERRORS, { oauth: false, methods: jwksEndpoint.methods }),
      },
    },
  };
}

function openApiPathItem(): OpenApiObject {
  return {
    get: {
      operationId: 'openApiDocument',
      tags: ['metadata'],
      summary: 'This OpenAPI 3.1 document',
      description: 'Built from the error catalogue once per gateway. Also answers HEAD. Any origin may read it (CORS), so Swagger UI or Redocly can load it from this URL.',
      security: NO_AUTHENTICATION,
      parameters: [parameterRef('X-Request-Id')],
      responses: {
        '200': {
          description: 'The document.',
          headers: {
            ...requestIdHeader(),
            'Cache-Control': cacheControl('It changes only with a new release or configuration.', { const: OPENAPI_CACHE_CONTROL }),
            'Access-Control-Allow-Origin': {
              description: 'Public and without credentials: readable from any origin.',
              required: true,
              schema: { type: 'string', const: '*' },
            },
          },
          content: { [OPENAPI_MEDIA_TYPE]: { schema: schemaRef('OpenApiDocument') } },
        },
        ...errorResponses(OPENAPI_ERRORS, { oauth: false, methods: OPENAPI_METHODS }),
      },
    },
  };
}

/** The public GET paths: the metadata at both well-known paths, the keys, and this document. */
export function publicPathItems(ctx: GatewayContext, openApiPath: string): Record<string, OpenApiObject> {
  return {
    [discoveryEndpoint.path]: metadataPathItem(ctx, 'discovery'),
    [authorizationServerMetadataEndpoint.path]: metadataPathItem(ctx, 'rfc8414'),
    [jwksEndpoint.path]: jwksPathItem(),
    [openApiPath]: openApiPathItem(),
  };
}
