import type { GatewayContext } from '../../context.js';
import { isGatewayError } from '../../errors/gateway-error.js';
import { revokeGrant } from '../../oauth/revoke-grant.js';
import type { GrantFilter } from '../../store/types.js';
import { AdminRefusal, answering, optionalName, refuseUnknownFields } from '../input.js';
import type { AdminOperation } from '../operation.js';

/** Whose grants: one user (every client), or one client (every user). */
type Target = { readonly username: string; readonly clientId?: undefined } | { readonly clientId: string; readonly username?: undefined };

/** Grants revoked at once: enough to keep a round trip from dominating, few enough not to crowd the request path. */
const REVOKE_BATCH = 64;

/**
 * POST /admin/v1/revocations: the kill switch after a leak (Keycloak's
 * "sign out all sessions" of a user, or a client's). Every active grant of
 * the user or client is revoked with revokeGrant: its refresh tokens are
 * removed and its access tokens, which carry the grant as `sid`, are refused
 * by the Bearer check on every instance (revocation is checked on every
 * request, also for tokens the verified-token cache holds).
 *
 * What it cannot stop: a login already past the password check as this runs
 * starts a new grant. The answer says so and names the account's status;
 * disabling the account first closes that door.
 */
export const revocationsOperation: AdminOperation = {
  path: '/admin/v1/revocations',
  method: 'POST',
  run: (ctx, input) =>
    answering(async () => {
      refuseUnknownFields(input, ['username', 'client_id']);
      const target = targetOf(input);
      const revoked = await revokeEveryGrant(ctx, target);
      ctx.logger.warn({ ...logFieldsOf(target), revoked }, 'admin: every grant revoked');
      return { status: 200, body: { revoked, ...answerFieldsOf(ctx, target, revoked) } };
    }),
};

function targetOf(input: Readonly<Record<string, unknown>>): Target {
  const username = optionalName(input, 'username');
  const clientId = optionalName(input, 'client_id');
  if ((username === undefined) === (clientId === undefined)) {
    throw new AdminRefusal(400, 'give exactly one of "username" (every grant of a user) or "client_id" (every grant of a client)');
  }
  return username === undefined ? { clientId: clientId! } : { username };
}

/**
 * Revokes while it lists, a batch at a time: memory stays bounded however
 * many grants a client has. If the store fails half-way, the operator is told
 * how many went; running it again is harmless.
 */
async function revokeEveryGrant(ctx: GatewayContext, target: Target): Promise<number> {
  const filter: GrantFilter = target.username === undefined ? { clientId: target.clientId } : { username: target.username };
  let revoked = 0;
  let batch: string[] = [];
  const revokeBatch = async () => {
    await Promise.all(batch.map((grantId) => revokeGrant(ctx, grantId, 'kill_switch')));
    revoked += batch.length;
    batch = [];
  };
  try {
    for await (const grant of ctx.store.refreshTokens.activeGrants(filter)) {
      batch.push(grant.grantId);
      if (batch.length === REVOKE_BATCH) await revokeBatch();
    }
    await revokeBatch();
  } catch (error) {
    if (!isGatewayError(error) || error.code !== 'SERVICE_UNAVAILABLE') throw error;
    // An outage the store reports is expected: its reason, not a stack (stacks are for defects, docs/monitoring.md).
    ctx.logger.warn({ ...logFieldsOf(target), revoked, code: error.code, reason: error.detail ?? error.message }, 'admin: revoking every grant stopped half-way');
    throw new AdminRefusal(503, `revoked ${revoked} grants, then the store failed (${error.detail ?? 'unavailable'}); run it again: revoking twice is harmless`);
  }
  return revoked;
}

const logFieldsOf = (target: Target) => (target.username === undefined ? { clientId: target.clientId } : { username: target.username });

/** The account's status as this gateway loaded it, and what the operator should know about logins in flight. */
function answerFieldsOf(ctx: GatewayContext, target: Target, revoked: number): Record<string, string> {
  if (target.username !== undefined) {
    const status = ctx.accounts.findUser(target.username)?.status ?? 'unknown';
    return { username: target.username, account: status, note: noteFor(revoked, status, `token-gateway users disable ${target.username}`) };
  }
  const status = ctx.accounts.findApp(target.clientId)?.status ?? 'unknown';
  return {
    client_id: target.clientId,
    account: status,
    note: `${noteFor(revoked, status, `token-gateway apps disable ${target.clientId}`)} After a leaked client secret, also give the client a new secret (token-gateway hash-secret).`,
  };
}

function noteFor(revoked: number, status: string, disable: string): string {
  const done = revoked === 0 ? 'There was no active grant to revoke.' : 'Every access and refresh token of these grants is refused from now on, on every instance.';
  if (status === 'active') {
    return `${done} The account is still active: a login in flight as this ran, or any later one, gets new tokens. Disable it first (${disable}), then run this again.`;
  }
  return `${done} A login that was already past the password check as this ran can still complete; running this again catches it.`;
}
