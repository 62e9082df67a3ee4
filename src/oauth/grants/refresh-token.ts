import { assertUserActive } from '../../accounts/registry.js';
import type { GatewayContext } from '../../context.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { refreshTokenRef } from '../../tokens/refresh-token-value.js';
import { revokeGrant } from '../revoke-grant.js';
import { mintRefreshToken, signTokenPair } from '../token-pair.js';
import type { Grant } from './grant.js';

interface RefreshParams {
  refreshToken: string;
}

/**
 * SPEC 4.4: parameters travel as headers (RFC 6749 6: in the form, where the
 * operator allows forms). Refresh tokens rotate on every use;
 * presenting a used one is treated as theft (OAuth 2.0 Security BCP 4.14.2):
 * the whole grant is revoked, access tokens included.
 */
export const refreshTokenGrant: Grant<RefreshParams> = {
  grantType: 'refresh_token',

  parameters(request) {
    const refreshToken = request.get('refresh_token')?.trim();
    if (!refreshToken) throw new GatewayError('REFRESH_TOKEN_REQUIRED');
    return { refreshToken };
  },

  async handler(ctx, client, { refreshToken }) {
    const old = refreshTokenRef(refreshToken);
    const record = old && (await ctx.store.refreshTokens.find(old));
    // Another client's token is reported exactly like an unknown one, and is not burnt.
    if (!record || record.clientId !== client.client_id) {
      throw new GatewayError('INVALID_REFRESH_TOKEN', { detail: record ? 'token of another client' : 'unknown refresh token' });
    }
    if (ctx.store.revocations.isRevoked('grant', record.grantId)) {
      throw new GatewayError('INVALID_REFRESH_TOKEN', { detail: 'grant revoked' });
    }
    if (record.usedAt !== undefined) return revokeReusedGrant(ctx, record.grantId);
    const user = ctx.accounts.findUser(record.username);
    if (!user) throw new GatewayError('INVALID_REFRESH_TOKEN', { detail: 'user no longer exists' });
    assertUserActive(user);

    const now = ctx.clock.now();
    const subject = { username: record.username, clientId: record.clientId, grantId: record.grantId };
    const successor = mintRefreshToken(ctx, subject, now, record.grantIssuedAt ?? record.issuedAt);
    const outcome = await ctx.store.refreshTokens.rotate(old, successor.ref.hash, successor.record, now);
    if (outcome.kind === 'reused') return revokeReusedGrant(ctx, record.grantId);
    if (outcome.kind === 'missing') throw new GatewayError('INVALID_REFRESH_TOKEN', { detail: 'refresh token vanished' });
    return signTokenPair(ctx, subject, successor, now);
  },
};

async function revokeReusedGrant(ctx: GatewayContext, grantId: string): Promise<never> {
  await revokeGrant(ctx, grantId);
  throw new GatewayError('INVALID_REFRESH_TOKEN', { detail: 'refresh token reuse: grant revoked' });
}
