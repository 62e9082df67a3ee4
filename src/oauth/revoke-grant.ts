import type { GatewayContext } from '../context.js';
import type { RevocationReason } from '../telemetry/metrics.js';

/**
 * Ends a grant: every access token and refresh token issued from it is
 * refused until the last of them would have expired anyway, and its refresh
 * tokens are forgotten. The entry covers the refresh tokens too (not only
 * access tokens), so the grant stays dead even if forgetting its tokens
 * fails halfway (a store that went away between the two steps).
 *
 * Every grant ended, whoever ended it, is counted here, once it is on the
 * revocation list: `token_gateway_tokens_revoked_total{token_type="refresh_token", reason}`.
 */
export async function revokeGrant(ctx: GatewayContext, grantId: string, reason: RevocationReason): Promise<void> {
  const { access_ttl, refresh_ttl, clock_leeway } = ctx.config.tokens;
  const lastExpiry = ctx.clock.now() + Math.max(access_ttl, refresh_ttl) + clock_leeway;
  await ctx.store.revocations.add({ kind: 'grant', id: grantId, expiresAt: lastExpiry });
  ctx.metrics.tokenRevoked('refresh_token', reason);
  await ctx.store.refreshTokens.removeGrant(grantId);
}
