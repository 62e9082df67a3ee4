import type { GatewayContext } from '../context.js';

/**
 * Ends a grant: its refresh tokens are forgotten and every access token issued
 * from it is refused until the last of them would have expired anyway.
 */
export async function revokeGrant(ctx: GatewayContext, grantId: string): Promise<void> {
  const { access_ttl, clock_leeway } = ctx.config.tokens;
  await ctx.store.revocations.add({ kind: 'grant', id: grantId, expiresAt: ctx.clock.now() + access_ttl + clock_leeway });
  await ctx.store.refreshTokens.removeGrant(grantId);
}
