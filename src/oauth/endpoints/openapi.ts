import type { GatewayContext } from '../../context.js';
import { sendJsonText } from '../../http/respond.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { OPENAPI_PATH } from '../../config/paths.js';
import { OPENAPI_CACHE_CONTROL, OPENAPI_CONTENT_TYPE, OPENAPI_METHODS } from '../openapi/location.js';
import type { Endpoint } from './endpoint.js';

// The document depends only on start-up settings (the issuer, the signing
// algorithm): built and serialised once per gateway, on first request.
const serialised = new WeakMap<GatewayContext, string>();

function documentJson(ctx: GatewayContext): string {
  let json = serialised.get(ctx);
  if (json === undefined) serialised.set(ctx, (json = JSON.stringify(buildOpenApiDocument(ctx))));
  return json;
}

/**
 * GET /oauth2/v1/openapi.json: the OpenAPI 3.1 document of the token service.
 * Public like discovery, and readable from any origin so that Swagger UI or
 * Redocly in a browser can load it by URL (nothing in it is secret, and no
 * credentials are involved).
 */
export const openApiEndpoint: Endpoint = {
  path: OPENAPI_PATH,
  methods: OPENAPI_METHODS,
  oauthErrors: false,

  async serve(ctx, exchange) {
    sendJsonText(exchange.res, 200, documentJson(ctx), {
      'Content-Type': OPENAPI_CONTENT_TYPE,
      'Cache-Control': OPENAPI_CACHE_CONTROL,
      'Access-Control-Allow-Origin': '*',
    });
  },
};
