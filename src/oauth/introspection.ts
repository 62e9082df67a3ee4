import type { AppAccount } from '../accounts/schema.js';
import { isActive } from '../accounts/registry.js';
import type { GatewayContext } from '../context.js';
import type { RefreshTokenRef } from '../store/types.js';
import { isAccessTokenRevoked } from '../tokens/access-token-revocation.js';
import { refreshTokenRef } from '../tokens/refresh-token-value.js';
import { verifiedAccessToken } from './presented-token.js';

/** RFC 7662 2.2: what an inactive, unknown, foreign or malformed token gets, and nothing more. */
export interface InactiveToken {
  readonly active: false;
}

/** RFC 7662 2.2 members for an active token; `scope` never, since no scope is defined (oauth/scope.ts). */
export interface ActiveToken {
  readonly active: true;
  /** `Bearer` for an access token (RFC 6749 5.1, as the token response says); `refresh_token` for a refresh token. */
  readonly token_type: 'Bearer' | 'refresh_token';
  readonly client_id: string;
  readonly username: string;
  readonly sub: string;
  readonly iss: string;
  readonly iat: number;
  readonly exp: number;
  /** Access tokens only. */
  readonly aud?: string;
  /** Access tokens only: a refresh token's own identifier is the grant's, which is not the caller's business. */
  readonly jti?: string;
}

export type Introspection = InactiveToken | ActiveToken;

const INACTIVE: InactiveToken = Object.freeze({ active: false });

/**
 * RFC 7662 for one authenticated app. `active: true` means what the gateway
 * itself would do with the token right now: an access token the edge would
 * accept (signature, typ, issuer, audience, expiry with leeway, and neither
 * it nor its grant revoked: proxy/bearer.ts), a refresh token the refresh
 * grant would exchange for this caller. Everything else, expired, revoked,
 * foreign-signed, malformed or unknown, is `{"active": false}`.
 *
 * Who learns what (RFC 7662 2.1 and 4, "to prevent token scanning"): every
 * app learns about its own tokens; an app marked `introspect: any` in
 * accounts.yaml is a resource server and learns about the access tokens of
 * every client, since that is what its callers present to it; to any other
 * app another client's token is simply not active, so it cannot tell a
 * foreign token from a forged one.
 */
export async function introspectToken(ctx: GatewayContext, caller: AppAccount, token: string): Promise<Introspection> {
  const ref = refreshTokenRef(token);
  return ref ? introspectRefreshToken(ctx, caller, ref) : introspectAccessToken(ctx, caller, token);
}

async function introspectAccessToken(ctx: GatewayContext, caller: AppAccount, token: string): Promise<Introspection> {
  // Keys not loaded yet: a 503 (retry), never a false "not active" that would make a resource server refuse a good token.
  const claims = await verifiedAccessToken(ctx, token);
  if (!claims || isAccessTokenRevoked(ctx.store.revocations, claims)) return INACTIVE;
  if (claims.client_id !== caller.client_id && caller.introspect !== 'any') return INACTIVE;
  return {
    active: true,
    token_type: 'Bearer',
    client_id: claims.client_id,
    username: claims.sub,
    sub: claims.sub,
    iss: claims.iss,
    aud: claims.aud,
    iat: claims.iat,
    exp: claims.exp,
    jti: claims.jti,
  };
}

/**
 * A refresh token is answered to the client it was issued to, and to nobody
 * else, resource servers included: only its own client ever legitimately
 * holds one (RFC 6749 10.4), so telling anyone else that it is live would
 * only help whoever stole it. As Keycloak does, the answer says it is a
 * refresh token.
 */
async function introspectRefreshToken(ctx: GatewayContext, caller: AppAccount, ref: RefreshTokenRef): Promise<Introspection> {
  const record = await ctx.store.refreshTokens.find(ref);
  if (!record || record.clientId !== caller.client_id) return INACTIVE;
  if (record.usedAt !== undefined || ctx.store.revocations.isRevoked('grant', record.grantId)) return INACTIVE;
  // The refresh grant refuses a user who is gone or no longer active (SPEC 5.9).
  const user = ctx.accounts.findUser(record.username);
  if (!user || !isActive(user)) return INACTIVE;
  return {
    active: true,
    token_type: 'refresh_token',
    client_id: record.clientId,
    username: record.username,
    sub: record.username,
    iss: ctx.issuer,
    iat: Math.floor(record.issuedAt / 1000),
    exp: Math.floor(record.expiresAt / 1000),
  };
}
