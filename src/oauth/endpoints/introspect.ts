import type { AppAccount } from '../../accounts/schema.js';
import { INTROSPECT_PATH } from '../../config/paths.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { sendJsonText } from '../../http/respond.js';
import { authenticateClient, readClientCredentials } from '../client-credentials.js';
import { introspectToken } from '../introspection.js';
import { formOrSpecParameters } from '../request-parameters.js';
import type { Endpoint } from './endpoint.js';

/**
 * POST /oauth2/v1/introspect (RFC 7662), for resource servers behind other
 * proxies that cannot verify a JWT themselves (Spring Security's opaque
 * token support, Kong's introspection plugin, Envoy ext_authz services).
 * RFC 7662's form always (`token`, `token_type_hint`, client credentials by
 * `client_secret_basic` or `client_secret_post`), whatever oauth.form_encoded
 * says, since there is no spec format to protect here; the spec's style as
 * well (`client_id`, `client_secret` and `token` headers). The caller must
 * authenticate (RFC 7662 2.1); what it learns is decided in
 * oauth/introspection.ts. The answer is RFC 7662 JSON whatever `Accept`
 * says (errors follow the gateway's negotiation, like discovery's).
 */
export const introspectEndpoint: Endpoint<{ readonly client: AppAccount; readonly token: string }> = {
  path: INTROSPECT_PATH,
  methods: ['POST'],
  oauthErrors: true,
  formEncoded: 'always',

  async authenticate(ctx, exchange) {
    const request = await formOrSpecParameters(ctx, exchange);
    const credentials = readClientCredentials(exchange.req, request.body);
    // RFC 7662 2.1: token REQUIRED; token_type_hint OPTIONAL and not needed, both kinds being recognised.
    const token = request.get('token')?.trim();
    if (!token) throw new GatewayError('TOKEN_REQUIRED');
    return { client: await authenticateClient(ctx, exchange, credentials), token };
  },

  async serve(ctx, exchange, { client, token }) {
    const answer = await introspectToken(ctx, client, token);
    // RFC 7662 2.2 is silent on caching; the answer changes with revocation, so like every token answer it is never cached.
    sendJsonText(exchange.res, 200, JSON.stringify(answer), { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  },
};
