import { parseArgs } from 'node:util';
import { CommandLineError } from '../command-errors.js';
import { ADMIN_CONNECTION_OPTIONS, ADMIN_CONNECTION_USAGE, adminConnection, callAdmin, runAdminCommand } from '../admin-client.js';
import { EXIT, type CommandIo } from '../io.js';

export const KEYS_USAGE = `usage: token-gateway keys rotate [--drop-previous] [--config FILE] [--admin URL]
  Signs with a new key from now on, on every instance sharing the store. Earlier keys stay
  published until the tokens they signed have expired, so nothing already issued breaks.
  --drop-previous unpublishes every earlier key at once (a leaked key): every access token
  they signed is refused from then on, and clients must refresh or log in again.
${ADMIN_CONNECTION_USAGE}`;

interface RotationAnswer {
  kid: string;
  signsFrom: string;
  nextKid: string;
  published: string[];
  dropped: string[];
  warning?: string;
}

/** `token-gateway keys rotate`: POST /admin/v1/keys/rotate. */
export function keysCommand(args: readonly string[], io: CommandIo): Promise<number> {
  return runAdminCommand('keys', KEYS_USAGE, args, io, async () => {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { ...ADMIN_CONNECTION_OPTIONS, 'drop-previous': { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length !== 1 || positionals[0] !== 'rotate') {
      throw new CommandLineError(positionals.length === 0 ? 'say what to do with the keys: rotate' : `unknown keys command "${positionals.join(' ')}"`);
    }
    const connection = await adminConnection(values);
    const dropPrevious = values['drop-previous'] === true;
    const answer = (await callAdmin(connection, 'POST', '/admin/v1/keys/rotate', dropPrevious ? { drop_previous: true } : {})) as unknown as RotationAnswer;
    io.stdout.write(
      `new signing key: ${answer.kid} (signs from ${answer.signsFrom})\n` +
        `next key:        ${answer.nextKid} (published now, signs one rotation interval later)\n` +
        `published keys:  ${answer.published.join(', ')}\n` +
        (answer.dropped.length > 0 ? `dropped keys:    ${answer.dropped.join(', ')}\n` : ''),
    );
    if (answer.warning) io.stderr.write(`WARNING: ${answer.warning}\n`);
    return EXIT.ok;
  });
}
