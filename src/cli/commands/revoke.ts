import { parseArgs } from 'node:util';
import { z } from '../../config/zod.js';
import { CommandLineError } from '../command-errors.js';
import { ADMIN_CONNECTION_OPTIONS, ADMIN_CONNECTION_USAGE, ACCOUNT_OPTIONS, accountInput, adminConnection, callAdmin, runAdminCommand } from '../admin-client.js';
import { EXIT, type CommandIo } from '../io.js';

export const REVOKE_USAGE = `usage: token-gateway revoke --user NAME | --client ID [--config FILE] [--admin URL]
  The kill switch after a leak: revokes every active grant of a user (with every client) or of a
  client (for every user). Their access and refresh tokens are refused from then on, on every
  instance. Disable the account first (users disable / apps disable), or it can log in again.
  --user NAME     every grant of this username
  --client ID     every grant of this client_id
${ADMIN_CONNECTION_USAGE}`;

/** POST /admin/v1/revocations as docs/operations.md gives it. */
const REVOCATION_ANSWER = z.looseObject({ revoked: z.number(), account: z.string(), note: z.string() });

/** `token-gateway revoke`: POST /admin/v1/revocations. */
export function revokeCommand(args: readonly string[], io: CommandIo): Promise<number> {
  return runAdminCommand('revoke', REVOKE_USAGE, args, io, async () => {
    const { values } = parseArgs({ args: [...args], options: { ...ADMIN_CONNECTION_OPTIONS, ...ACCOUNT_OPTIONS }, strict: true });
    if ((values.user === undefined) === (values.client === undefined)) throw new CommandLineError('give exactly one of --user NAME or --client ID');
    const input = accountInput(values);
    const connection = await adminConnection(values);
    const answer = await callAdmin(connection, 'POST', '/admin/v1/revocations', input, REVOCATION_ANSWER);
    const whose = values.user === undefined ? `client ${values.client}` : `user ${values.user}`;
    io.stdout.write(`revoked ${answer.revoked} ${answer.revoked === 1 ? 'grant' : 'grants'} of ${whose} (account status: ${answer.account})\n`);
    io.stderr.write(`note: ${answer.note}\n`);
    return EXIT.ok;
  });
}
