import type { GrantFilter, GrantSummary, RefreshTokenRecord } from './types.js';

/**
 * One grant's refresh-token records as the admin API shows the grant, or
 * undefined when it is not active (no unused, unexpired token) or does not
 * match the filter. Both stores summarise with this one function, so they
 * cannot disagree on what "active" means.
 */
export function summariseGrant(records: Iterable<RefreshTokenRecord>, now: number, filter: GrantFilter): GrantSummary | undefined {
  let first: RefreshTokenRecord | undefined;
  let latest: RefreshTokenRecord | undefined;
  let live: RefreshTokenRecord | undefined;
  for (const record of records) {
    if (!first) {
      // Every token of a grant has the same user and client: the first record decides the filter.
      if (!matches(record, filter)) return undefined;
      first = record;
    }
    if (startOf(record) < startOf(first)) first = record;
    if (!latest || record.issuedAt > latest.issuedAt) latest = record;
    if (record.usedAt === undefined && record.expiresAt > now && (!live || record.expiresAt > live.expiresAt)) live = record;
  }
  if (!first || !latest || !live) return undefined;
  const issuedAt = startOf(first);
  return {
    grantId: live.grantId,
    username: live.username,
    clientId: live.clientId,
    issuedAt,
    lastRefreshedAt: latest.issuedAt > issuedAt ? latest.issuedAt : undefined,
    expiresAt: live.expiresAt,
  };
}

/** When the login happened; records written before `grantIssuedAt` existed only know their own issue time. */
const startOf = (record: RefreshTokenRecord): number => record.grantIssuedAt ?? record.issuedAt;

const matches = (record: RefreshTokenRecord, { username, clientId }: GrantFilter): boolean =>
  (username === undefined || record.username === username) && (clientId === undefined || record.clientId === clientId);
