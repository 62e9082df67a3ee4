import type { AppAccount } from '../../accounts/schema.js';
import { TOKEN_PATH } from '../../config/paths.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { isJsonContentType } from '../../http/negotiate.js';
import { authenticateClient, headerOf, readClientCredentials, readOAuthJsonBody } from '../client-credentials.js';
import type { Grant } from '../grants/grant.js';
import { passwordGrant } from '../grants/password.js';
import { refreshTokenGrant } from '../grants/refresh-token.js';
import { sendTokenResponse } from '../token-pair.js';
import type { Endpoint } from './endpoint.js';

const GRANTS: ReadonlyMap<string, Grant<unknown>> = new Map<string, Grant<unknown>>([
  [passwordGrant.grantType, passwordGrant as Grant<unknown>],
  [refreshTokenGrant.grantType, refreshTokenGrant as Grant<unknown>],
]);

/** SPEC 4.3: the grant_type header is optional and means the password grant when absent. */
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
 * POST /oauth2/v1/token. The checks run in the spec's order of blame: the
 * request's shape (415, 400) before any credential is verified (401), the
 * client before the user (the grant's own check, in `serve`).
 */
export const tokenEndpoint: Endpoint<TokenRequest> = {
  path: TOKEN_PATH,
  methods: ['POST'],
  oauthErrors: true,

  async authenticate(ctx, exchange) {
    const { req } = exchange;
    // SPEC 4.3 and 4.4 both require application/json (SPEC 7: else 415).
    if (!isJsonContentType(req.headers['content-type'])) throw new GatewayError('UNSUPPORTED_MEDIA_TYPE');
    const grant = selectGrant(headerOf(req, 'grant_type'));
    const body = await readOAuthJsonBody(ctx, exchange);
    const credentials = readClientCredentials(req, body);
    const params = grant.parameters(req, body);
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
