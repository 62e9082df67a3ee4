import { parseArgs } from 'node:util';
import { MAX_LIMIT } from '../../admin/operations/list-grants.js';
import { z } from '../../config/zod.js';
import { CommandLineError } from '../command-errors.js';
import { ADMIN_CONNECTION_OPTIONS, ADMIN_CONNECTION_USAGE, ACCOUNT_OPTIONS, accountInput, adminConnection, callAdmin, runAdminCommand } from '../admin-client.js';
import { EXIT, type CommandIo } from '../io.js';
import { formatTable } from '../table.js';

export const GRANTS_USAGE = `usage: token-gateway grants [--user NAME] [--client ID] [--limit N] [--json] [--config FILE] [--admin URL]
  Lists the active grants (logins), newest first: user, client, login time, last refresh, expiry.
  --user NAME     only this username's
  --client ID     only this client_id's
  --limit N       at most N, a whole number from 1 to ${MAX_LIMIT} (default 1000); the total is always given
  --json          the admin API's answer as JSON, for scripts
${ADMIN_CONNECTION_USAGE}`;

/** GET /admin/v1/grants as docs/operations.md gives it; what the table reads is checked, the rest kept for --json. */
const GRANTS_ANSWER = z.looseObject({
  total: z.number(),
  truncated: z.boolean(),
  grants: z.array(
    z.looseObject({
      grantId: z.string(),
      username: z.string(),
      clientId: z.string(),
      issuedAt: z.string(),
      lastRefreshedAt: z.string().nullable(),
      expiresAt: z.string(),
    }),
  ),
});

type GrantsAnswer = z.infer<typeof GRANTS_ANSWER>;

/** `token-gateway grants`: GET /admin/v1/grants, as a table or as JSON. */
export function grantsCommand(args: readonly string[], io: CommandIo): Promise<number> {
  return runAdminCommand('grants', GRANTS_USAGE, args, io, async () => {
    const { values } = parseArgs({
      args: [...args],
      options: { ...ADMIN_CONNECTION_OPTIONS, ...ACCOUNT_OPTIONS, limit: { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
    });
    const account = accountInput(values);
    if (values.limit !== undefined) checkLimit(values.limit);
    const connection = await adminConnection(values);
    const query = { ...account, ...(values.limit === undefined ? {} : { limit: values.limit }) };
    const answer = await callAdmin(connection, 'GET', '/admin/v1/grants', query, GRANTS_ANSWER);
    io.stdout.write(values.json ? `${JSON.stringify(answer, null, 2)}\n` : grantsTable(answer));
    return EXIT.ok;
  });
}

/** A wrong --limit is the command line's mistake (exit 2), not the gateway's refusal of it (which would be exit 1). */
function checkLimit(text: string): void {
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1 || Number(text) > MAX_LIMIT) {
    throw new CommandLineError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got "${text}"`);
  }
}

function grantsTable({ total, truncated, grants }: GrantsAnswer): string {
  if (total === 0) return 'no active grants\n';
  const rows = grants.map((grant) => [grant.grantId, grant.username, grant.clientId, short(grant.issuedAt), grant.lastRefreshedAt ? short(grant.lastRefreshedAt) : '-', short(grant.expiresAt)]);
  const table = formatTable(['GRANT', 'USER', 'CLIENT', 'LOGGED IN', 'LAST REFRESH', 'EXPIRES'], rows);
  const footer = truncated
    ? `showing the newest ${grants.length} of ${total} active grants (narrow with --user or --client, or raise --limit)\n`
    : `${total} active ${total === 1 ? 'grant' : 'grants'}\n`;
  return table + footer;
}

/** Seconds are precise enough in a table; --json keeps the milliseconds. */
const short = (iso: string): string => iso.replace(/\.\d{3}Z$/, 'Z');
