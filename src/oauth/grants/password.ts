import { GatewayError } from '../../errors/gateway-error.js';
import { mintRefreshToken, newGrantId, signTokenPair } from '../token-pair.js';
import type { Grant } from './grant.js';

interface PasswordParams {
  username: string;
  password: string;
}

const filled = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** SPEC 4.3: username and password in the JSON body. */
export const passwordGrant: Grant<PasswordParams> = {
  grantType: 'password',

  parameters(_req, body) {
    const { username, password } = body ?? {};
    // SPEC 7: "missing or blank"; a non-string is as unusable as a missing one.
    if (!filled(username) || !filled(password)) throw new GatewayError('USER_CREDENTIALS_REQUIRED');
    return { username, password };
  },

  async handler(ctx, client, { username, password }) {
    const user = await ctx.accounts.authenticateUser(username, password);
    const now = ctx.clock.now();
    const subject = { username: user.username, clientId: client.client_id, grantId: newGrantId() };
    const refresh = mintRefreshToken(ctx, subject, now);
    await ctx.store.refreshTokens.save(refresh.ref, refresh.record);
    return signTokenPair(ctx, subject, refresh, now);
  },
};
