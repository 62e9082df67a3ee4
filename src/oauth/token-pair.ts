import type { GatewayContext } from '../context.js';
import type { Exchange } from '../http/exchange.js';
import { preferredFormat } from '../http/negotiate.js';
import { sendRecord } from '../http/respond.js';
import type { RefreshTokenRecord, RefreshTokenRef } from '../store/types.js';
import type { AccessTokenSubject } from '../tokens/access-token.js';
import { hashRefreshToken, newRefreshTokenValue } from '../tokens/refresh-token-value.js';

export { newGrantId } from '../tokens/refresh-token-value.js';

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  /** Milliseconds since the epoch (SPEC 2.1 issued_at). */
  issuedAt: number;
  expiresInSeconds: number;
}

export interface MintedRefreshToken {
  value: string;
  ref: RefreshTokenRef;
  record: RefreshTokenRecord;
}

/**
 * A refresh token for a grant; the caller decides how it is stored (saved,
 * or rotated in). `grantIssuedAt` is when the login happened: now for a
 * password grant, carried over by a refresh. The value is random unless
 * given (a rotation's successor is derived: refreshSuccessorOf).
 */
export function mintRefreshToken(
  ctx: GatewayContext,
  subject: AccessTokenSubject,
  now: number,
  grantIssuedAt = now,
  value = newRefreshTokenValue(subject.grantId),
): MintedRefreshToken {
  return {
    value,
    ref: { grantId: subject.grantId, hash: hashRefreshToken(value) },
    record: {
      grantId: subject.grantId,
      clientId: subject.clientId,
      username: subject.username,
      issuedAt: now,
      // Each rotated token lives refresh_ttl from its own issue (SPEC 2.1 rule 2).
      expiresAt: now + ctx.config.tokens.refresh_ttl,
      grantIssuedAt,
    },
  };
}

/** An access token for the subject, paired with the refresh token's value (a new one, or a retry's successor). */
export async function signTokenPair(ctx: GatewayContext, subject: AccessTokenSubject, refresh: Pick<MintedRefreshToken, 'value'>, now: number): Promise<TokenPair> {
  const { token } = await ctx.accessTokens.issue(subject, now);
  return { accessToken: token, refreshToken: refresh.value, issuedAt: now, expiresInSeconds: ctx.accessTokens.ttlSeconds };
}

/**
 * SPEC 2.1, field for field: issued_at and expires_in as digit strings,
 * token_type Bearer. RFC 6749 5.1: never cached.
 */
export function sendTokenResponse(exchange: Exchange, pair: TokenPair): void {
  const body = {
    issued_at: String(pair.issuedAt),
    expires_in: String(pair.expiresInSeconds),
    token_type: 'Bearer',
    access_token: pair.accessToken,
    refresh_token: pair.refreshToken,
  };
  sendRecord(exchange.res, 200, body, { format: preferredFormat(exchange.req), xmlRoot: 'TokenResponse' }, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
}
