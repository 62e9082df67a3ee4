import { inactiveUserRefusal } from '../../accounts/registry.js';
import { REFRESH_GRACE_RETRIES } from '../../config/defaults.js';
import type { GatewayContext } from '../../context.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { replayReason } from '../../store/replay-reason.js';
import type { RefreshGrace, RefreshTokenRecord, ReplayReason, RotationOutcome } from '../../store/types.js';
import type { AccessTokenSubject } from '../../tokens/access-token.js';
import { hashRefreshToken, newRotationSalt, refreshTokenRef, successorRefreshTokenValue } from '../../tokens/refresh-token-value.js';
import { revokeGrant } from '../revoke-grant.js';
import { mintRefreshToken, signTokenPair, type TokenPair } from '../token-pair.js';
import type { Grant } from './grant.js';

interface RefreshParams {
  refreshToken: string;
}

/**
 * SPEC 4.4: parameters travel as headers (RFC 6749 6: in the form, where the
 * operator allows forms). Refresh tokens rotate on every use, each to exactly
 * one successor (RFC 9700 4.14.2). Presenting a used one again is a retry
 * while it is within `tokens.refresh_grace` of its rotation, its successor
 * unused and its retries within bounds: the answer is the same successor and
 * a new access token of the same grant. Any other presentation of a used
 * token is theft: the whole grant is revoked, access tokens included. The
 * store decides in one atomic step, on any instance (docs/refresh-tokens.md).
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
    if (!old || !record || record.clientId !== client.client_id) {
      throw new GatewayError('INVALID_REFRESH_TOKEN', { detail: record ? 'token of another client' : 'unknown refresh token' });
    }
    if (ctx.store.revocations.isRevoked('grant', record.grantId)) {
      throw new GatewayError('INVALID_REFRESH_TOKEN', { detail: 'grant revoked' });
    }
    const now = ctx.clock.now();
    // Before the rotation, so that a refused user does not burn the token, nor spend the retries of a used
    // one; a replay is judged first, as theft, by the store's rotation below.
    const refusal = userRefusalOf(ctx, record);
    if (refusal && (record.usedAt === undefined || (await isRetry(ctx, record, now)))) throw refusal;

    const subject = { username: record.username, clientId: record.clientId, grantId: record.grantId };
    const salt = newRotationSalt();
    const value = successorRefreshTokenValue(ctx.refreshSuccessorKey, record.grantId, refreshToken, salt);
    const successor = mintRefreshToken(ctx, subject, now, record.grantIssuedAt ?? record.issuedAt, value);
    const outcome = await ctx.store.refreshTokens.rotate(old, { hash: successor.ref.hash, salt, record: successor.record }, now, graceOf(ctx));
    switch (outcome.kind) {
      case 'rotated':
        return signTokenPair(ctx, subject, successor, now);
      case 'retried': {
        // The account may have changed between the look above and the store's decision.
        const late = userRefusalOf(ctx, record);
        if (late) throw late;
        return answerRetry(ctx, subject, refreshToken, outcome, now);
      }
      case 'reused':
        return revokeReusedGrant(ctx, subject, outcome.reason);
      case 'missing':
        throw new GatewayError('INVALID_REFRESH_TOKEN', { detail: 'refresh token vanished' });
    }
  },
};

const graceOf = (ctx: GatewayContext): RefreshGrace => ({ windowMs: ctx.config.tokens.refresh_grace, maxRetries: REFRESH_GRACE_RETRIES });

/**
 * Whether presenting this used token now would be a retry (not theft), read
 * without deciding anything: the store alone decides, atomically; this only
 * lets a refused user's retry be refused before the store counts it.
 */
async function isRetry(ctx: GatewayContext, used: RefreshTokenRecord, now: number): Promise<boolean> {
  const successor = used.successorHash === undefined ? undefined : await ctx.store.refreshTokens.find({ grantId: used.grantId, hash: used.successorHash });
  return replayReason(used, successor, now, graceOf(ctx)) === undefined;
}

/** Why the token's user may not refresh (gone, or not active), as the error the grant answers with; undefined when they may. */
function userRefusalOf(ctx: GatewayContext, record: RefreshTokenRecord): GatewayError | undefined {
  const user = ctx.accounts.findUser(record.username);
  if (!user) return new GatewayError('INVALID_REFRESH_TOKEN', { detail: 'user no longer exists' });
  return inactiveUserRefusal(user);
}

/**
 * The same successor, derived again from the presented token and the salt
 * the store kept, with a new access token of the same grant (`sid`): the
 * grant's revocation covers it like every other. A successor that does not
 * derive to the stored hash means instances derive with different keys.
 */
async function answerRetry(
  ctx: GatewayContext,
  subject: AccessTokenSubject,
  presented: string,
  { successorHash, salt, retry }: Extract<RotationOutcome, { kind: 'retried' }>,
  now: number,
): Promise<TokenPair> {
  const value = successorRefreshTokenValue(ctx.refreshSuccessorKey, subject.grantId, presented, salt);
  if (hashRefreshToken(value) !== successorHash) {
    throw new GatewayError('INTERNAL_ERROR', {
      detail: 'the successor derived again differs from the stored one: every instance of the environment needs the same key-encryption key',
    });
  }
  ctx.metrics.refreshRetried('answered');
  ctx.logger.info({ grantId: subject.grantId, clientId: subject.clientId, retry }, 'refresh retried within the grace window: the same successor answered');
  return signTokenPair(ctx, subject, { value }, now);
}

async function revokeReusedGrant(ctx: GatewayContext, subject: AccessTokenSubject, reason: ReplayReason): Promise<never> {
  ctx.metrics.refreshRetried(reason);
  ctx.logger.warn({ grantId: subject.grantId, clientId: subject.clientId, reason }, 'refresh token reuse: revoking the grant');
  await revokeGrant(ctx, subject.grantId, 'reuse_detected');
  throw new GatewayError('INVALID_REFRESH_TOKEN', { detail: `refresh token reuse (${reason}): grant revoked` });
}
