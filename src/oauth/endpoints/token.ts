import type { AppAccount } from '../../accounts/schema.js';
import { TOKEN_PATH } from '../../config/paths.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { Exchange } from '../../http/exchange.js';
import { isJsonContentType } from '../../http/negotiate.js';
import type { GatewayContext } from '../../context.js';
import { authenticateClient, headerOf, readClientCredentials } from '../client-credentials.js';
import type { Grant } from '../grants/grant.js';
import { passwordGrant } from '../grants/password.js';
import { refreshTokenGrant } from '../grants/refresh-token.js';
import { readOAuthJsonBody } from '../request-body.js';
import { assertIdentityCoded, formParameters, permittedForm, specParameters, type OAuthParameters } from '../request-parameters.js';
import { assertNoScopeRequested } from '../scope.js';
import { sendTokenResponse } from '../token-pair.js';
import type { Endpoint } from './endpoint.js';

const GRANTS: ReadonlyMap<string, Grant<unknown>> = new Map<string, Grant<unknown>>([
  [passwordGrant.grantType, passwordGrant as Grant<unknown>],
  [refreshTokenGrant.grantType, refreshTokenGrant as Grant<unknown>],
]);

/**
 * SPEC 4.3: the grant_type header is optional and means the password grant
 * when absent. RFC 6749 makes `grant_type` required in a form; a form
 * without one is read as the spec reads a request without one, rather than
 * given an error the spec does not have.
 */
function selectGrant(grantType: string | undefined): Grant<unknown> {
  const grant = GRANTS.get(grantType?.trim() || passwordGrant.grantType);
  if (!grant) throw new GatewayError('UNSUPPORTED_GRANT_TYPE');
  return grant;
}

/** What the token endpoint has established once the client is verified: the grant to run, with its parameters. */
interface TokenRequest {
  readonly client: AppAccount;
  readonly grant: Grant<unknown>;
  readonly params: unknown;
}

/**
 * The request's body and its grant, in the order of blame: the media type
 * (415), then the shape (400). A form the operator allows (RFC 6749 4.3.2
 * and 6: every parameter in the form) is read first, since its grant_type
 * is in it; the spec's JSON request names its grant in a header, checked
 * before the body is read, as it always was.
 */
async function readTokenRequest(ctx: GatewayContext, exchange: Exchange): Promise<{ request: OAuthParameters; grant: Grant<unknown> }> {
  const { req } = exchange;
  const form = await permittedForm(ctx, exchange);
  if (form) {
    const request = formParameters(req, form);
    return { request, grant: selectGrant(request.get('grant_type')) };
  }
  // SPEC 4.3 and 4.4 both require application/json (SPEC 7: else 415); so
  // does every form the operator has not allowed for the app that sent it.
  if (!isJsonContentType(req.headers['content-type'])) throw new GatewayError('UNSUPPORTED_MEDIA_TYPE');
  assertIdentityCoded(req);
  const grant = selectGrant(headerOf(req, 'grant_type'));
  return { request: specParameters(req, 'json', await readOAuthJsonBody(ctx, exchange)), grant };
}

/**
 * POST /oauth2/v1/token. The checks run in the spec's order of blame: the
 * request's shape (415, 400) before any credential is verified (401), the
 * client before the user (the grant's own check, in `serve`). Forms follow
 * the same order (docs/standard-oauth-clients.md).
 */
export const tokenEndpoint: Endpoint<TokenRequest> = {
  path: TOKEN_PATH,
  methods: ['POST'],
  oauthErrors: true,
  formEncoded: 'opt-in',

  async authenticate(ctx, exchange) {
    const { request, grant } = await readTokenRequest(ctx, exchange);
    const credentials = readClientCredentials(exchange.req, request.body);
    const params = grant.parameters(request);
    assertNoScopeRequested(request);
    // Every grant writes to the store: with Redis known out of reach, 503 now rather than after hashing secrets.
    ctx.store.checkWritable();
    const client = await authenticateClient(ctx, exchange, credentials);
    return { client, grant, params };
  },

  async serve(ctx, exchange, { client, grant, params }) {
    const pair = await grant.handler(ctx, client, params, exchange);
    ctx.metrics.tokensIssued(grant.grantType);
    sendTokenResponse(exchange, pair);
  },
};
