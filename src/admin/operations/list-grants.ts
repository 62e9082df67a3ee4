import type { GatewayContext } from '../../context.js';
import type { GrantFilter, GrantSummary } from '../../store/types.js';
import { answering, boundedCount, isoTime, optionalName, refuseUnknownFields } from '../input.js';
import type { AdminOperation } from '../operation.js';
import { NewestGrants } from './newest-grants.js';

/** Grants in one answer unless `limit` says otherwise; the ceiling keeps one answer a few megabytes at most. */
const DEFAULT_LIMIT = 1_000;
/** Exported for the CLI, which refuses a --limit past it before it calls (exit 2, the command line). */
export const MAX_LIMIT = 10_000;

/**
 * GET /admin/v1/grants?username=...&client_id=...&limit=...: the active
 * grants (logins), the `limit` newest first, with the total that matched. Never a token
 * value or hash: a grant id alone opens nothing. A grant revoked but not yet
 * forgotten by the store (it failed half-way) is not active, so not listed.
 */
export const grantsOperation: AdminOperation = {
  path: '/admin/v1/grants',
  method: 'GET',
  run: (ctx, input) =>
    answering(async () => {
      refuseUnknownFields(input, ['username', 'client_id', 'limit']);
      const username = optionalName(input, 'username');
      const clientId = optionalName(input, 'client_id');
      const limit = boundedCount(input, 'limit', { fallback: DEFAULT_LIMIT, max: MAX_LIMIT });
      const { total, page } = await newestGrants(ctx, { ...(username === undefined ? {} : { username }), ...(clientId === undefined ? {} : { clientId }) }, limit);
      return { status: 200, body: { total, limit, truncated: total > page.length, grants: page.map(grantAsJson) } };
    }),
};

/** Counts every match but keeps only the newest `limit`: the store is read whole, memory is not. */
async function newestGrants(ctx: GatewayContext, filter: GrantFilter, limit: number): Promise<{ total: number; page: GrantSummary[] }> {
  const newest = new NewestGrants(limit);
  let total = 0;
  for await (const grant of ctx.store.refreshTokens.activeGrants(filter)) {
    if (ctx.store.revocations.isRevoked('grant', grant.grantId)) continue;
    total++;
    newest.offer(grant);
  }
  return { total, page: newest.sorted() };
}

function grantAsJson(grant: GrantSummary): Record<string, string | null> {
  return {
    grantId: grant.grantId,
    username: grant.username,
    clientId: grant.clientId,
    issuedAt: isoTime(grant.issuedAt),
    lastRefreshedAt: grant.lastRefreshedAt === undefined ? null : isoTime(grant.lastRefreshedAt),
    expiresAt: isoTime(grant.expiresAt),
  };
}
