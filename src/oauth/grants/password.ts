import type { UserAccount } from '../../accounts/schema.js';
import type { GatewayContext } from '../../context.js';
import { GatewayError, isGatewayError } from '../../errors/gateway-error.js';
import { mintRefreshToken, newGrantId, signTokenPair } from '../token-pair.js';
import type { Grant } from './grant.js';

interface PasswordParams {
  username: string;
  password: string;
}

/** The password check behind the brute-force counters: a locked username or address is refused before any hashing. */
async function authenticateUser(ctx: GatewayContext, username: string, password: string, address: string): Promise<UserAccount> {
  const attempt = await ctx.loginThrottle.begin(username, address);
  try {
    // Counting may be what found Redis out of reach: the grant could not be saved, so the password is not worth hashing.
    ctx.store.checkWritable();
    const user = await ctx.accounts.authenticateUser(username, password);
    await attempt.succeeded();
    return user;
  } catch (error) {
    // Only a wrong password counts; a right one for a suspended account is not a guess.
    if (isGatewayError(error) && error.code === 'INVALID_USER_CREDENTIALS') await attempt.failed();
    else await attempt.abandoned();
    throw error;
  }
}

const filled = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** SPEC 4.3: username and password in the JSON body; RFC 6749 4.3.2: in the form, where the operator allows forms. */
export const passwordGrant: Grant<PasswordParams> = {
  grantType: 'password',

  parameters({ body }) {
    const { username, password } = body ?? {};
    // SPEC 7: "missing or blank"; a non-string is as unusable as a missing one.
    if (!filled(username) || !filled(password)) throw new GatewayError('USER_CREDENTIALS_REQUIRED');
    return { username, password };
  },

  async handler(ctx, client, { username, password }, exchange) {
    const user = await authenticateUser(ctx, username, password, exchange.clientAddress());
    const now = ctx.clock.now();
    const subject = { username: user.username, clientId: client.client_id, grantId: newGrantId() };
    const refresh = mintRefreshToken(ctx, subject, now);
    await ctx.store.refreshTokens.save(refresh.ref, refresh.record);
    return signTokenPair(ctx, subject, refresh, now);
  },
};
