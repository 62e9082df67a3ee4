import type { IncomingMessage } from 'node:http';
import type { GatewayContext } from '../context.js';
import { catalogue } from '../errors/catalogue.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import type { AccessTokenClaims } from '../tokens/access-token.js';

const REALM = 'token-gateway';
// RFC 6750 section 2.1: "Bearer" 1*SP b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** RFC 6750 section 3: no credentials, no error code; a bad token, invalid_token. */
const NO_CREDENTIALS_CHALLENGE = { 'WWW-Authenticate': `Bearer realm="${REALM}"` };
const INVALID_TOKEN_CHALLENGE = {
  'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token", error_description="${catalogue.ACCESS_TOKEN_INVALID.message}"`,
};

function readBearerToken(req: IncomingMessage): string | undefined {
  return BEARER.exec(req.headers.authorization ?? '')?.[1];
}

/**
 * SPEC 4.6: a protected call carries `Authorization: Bearer <token>`. Checks
 * signature, typ, iss, aud and exp (AccessTokens.verify), then revocation of
 * the token and of its grant, from memory.
 */
export async function authenticateBearer(ctx: GatewayContext, req: IncomingMessage): Promise<AccessTokenClaims> {
  const header = req.headers.authorization;
  if (header === undefined || !/^Bearer\b/i.test(header)) {
    throw new GatewayError('AUTHENTICATION_REQUIRED', { detail: 'no bearer token', headers: NO_CREDENTIALS_CHALLENGE });
  }
  const token = readBearerToken(req);
  if (!token) throw new GatewayError('ACCESS_TOKEN_INVALID', { detail: 'malformed bearer token', headers: INVALID_TOKEN_CHALLENGE });
  let claims: AccessTokenClaims;
  try {
    claims = await ctx.accessTokens.verify(token);
  } catch (error) {
    if (!isGatewayError(error) || error.code === 'SERVICE_UNAVAILABLE') throw error;
    throw new GatewayError('ACCESS_TOKEN_INVALID', { detail: error.detail, headers: INVALID_TOKEN_CHALLENGE });
  }
  const { revocations } = ctx.store;
  // A starting instance whose list is not loaded yet cannot tell a revoked token from a good one.
  if (!revocations.loaded) throw new GatewayError('SERVICE_UNAVAILABLE', { detail: 'revocation list not loaded yet', headers: { 'Retry-After': '1' } });
  if (revocations.isRevoked('token', claims.jti) || revocations.isRevoked('grant', claims.sid)) {
    throw new GatewayError('ACCESS_TOKEN_INVALID', { detail: 'token revoked', headers: INVALID_TOKEN_CHALLENGE });
  }
  return claims;
}
