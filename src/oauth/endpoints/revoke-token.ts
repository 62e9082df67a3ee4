import type { AppAccount } from '../../accounts/schema.js';
import { REVOKE_PATH } from '../../config/paths.js';
import type { GatewayContext } from '../../context.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { preferredFormat } from '../../http/negotiate.js';
import { sendRecord } from '../../http/respond.js';
import type { RevokedTokenType } from '../../telemetry/metrics.js';
import { authenticateClient, readClientCredentials } from '../client-credentials.js';
import { verifiedAccessToken } from '../presented-token.js';
import { optionalBodyParameters } from '../request-parameters.js';
import { refreshTokenRef } from '../../tokens/refresh-token-value.js';
import { revokeGrant } from '../revoke-grant.js';
import type { Endpoint } from './endpoint.js';

/**
 * POST /oauth2/v1/revokeToken (SPEC 4.5, RFC 7009). Parameters are headers;
 * no body or Content-Type is needed (a JSON body may carry the client
 * credentials, like on the token endpoint). Where the operator allows forms,
 * RFC 7009 2.1's form (`token`, `token_type_hint`, and `client_secret_post`
 * credentials) is read too; `token_type_hint` is not needed, since both
 * kinds are recognised (RFC 7009 2.2.1 lets a server ignore it). A form
 * from an app not allowed forms is ignored, as any other body is, which is
 * exactly what the same request got before forms existed. 200 for a revoked
 * token and for an unknown, invalid or expired one (RFC 7009 2.2: nothing to
 * revoke is not an error); 400 for a valid token of another client
 * (RFC 7009 2.1).
 */
export const revokeEndpoint: Endpoint<{ readonly client: AppAccount; readonly token: string }> = {
  path: REVOKE_PATH,
  methods: ['POST'],
  oauthErrors: true,
  formEncoded: 'opt-in',

  async authenticate(ctx, exchange) {
    const request = await optionalBodyParameters(ctx, exchange);
    const credentials = readClientCredentials(exchange.req, request.body);
    const token = request.get('token')?.trim();
    if (!token) throw new GatewayError('TOKEN_REQUIRED');
    return { client: await authenticateClient(ctx, exchange, credentials), token };
  },

  async serve(ctx, exchange, { client, token }) {
    const revoked = await revokeOwnToken(ctx, client.client_id, token);
    // A grant is counted by revokeGrant, as every revoked grant is.
    if (revoked !== 'refresh_token') ctx.metrics.tokenRevoked(revoked, 'revocation_endpoint');
    sendRecord(
      exchange.res,
      200,
      { success: true, requestId: exchange.requestId },
      { format: preferredFormat(exchange.req), xmlRoot: 'RevocationResponse' },
      { 'Cache-Control': 'no-store' },
    );
  },
};

/** A refresh token ends its whole grant (its access tokens too); an access token only itself. Says which it was. */
async function revokeOwnToken(ctx: GatewayContext, clientId: string, token: string): Promise<RevokedTokenType> {
  const ref = refreshTokenRef(token);
  if (ref) {
    const record = await ctx.store.refreshTokens.find(ref);
    if (!record) return 'none';
    assertIssuedTo(record.clientId, clientId);
    await revokeGrant(ctx, record.grantId, 'revocation_endpoint');
    return 'refresh_token';
  }
  // Invalid, expired or foreign-signed: nothing to revoke (RFC 7009 2.2). Keys not loaded yet: a 503, never a false 200.
  const claims = await verifiedAccessToken(ctx, token);
  if (!claims) return 'none';
  assertIssuedTo(claims.client_id, clientId);
  await ctx.store.revocations.add({ kind: 'token', id: claims.jti, expiresAt: claims.exp * 1000 + ctx.config.tokens.clock_leeway });
  return 'access_token';
}

function assertIssuedTo(owner: string, caller: string): void {
  if (owner !== caller) throw new GatewayError('TOKEN_NOT_ISSUED_TO_CLIENT', { detail: `token belongs to ${owner}` });
}
