import type { GatewayContext } from '../context.js';
import { isGatewayError } from '../errors/gateway-error.js';
import type { AccessTokenClaims } from '../tokens/access-token.js';

/**
 * The claims of an access token a client presents to revoke or introspect,
 * when it verifies (signature, typ, issuer, audience, expiry); undefined when
 * it is invalid, expired or signed by someone else, which for those endpoints
 * is an answer (RFC 7009 2.2, RFC 7662 2.2), not an error. Keys not loaded
 * yet stay a 503: never a false "nothing to revoke" or "not active".
 */
export async function verifiedAccessToken(ctx: GatewayContext, token: string): Promise<Readonly<AccessTokenClaims> | undefined> {
  try {
    return await ctx.accessTokens.verify(token);
  } catch (error) {
    if (isGatewayError(error) && error.code === 'ACCESS_TOKEN_INVALID') return undefined;
    throw error;
  }
}
