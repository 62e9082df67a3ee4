import { parseArgs } from 'node:util';
import { z } from '../../config/zod.js';
import { CommandLineError } from '../command-errors.js';
import { ADMIN_CONNECTION_OPTIONS, ADMIN_CONNECTION_USAGE, adminConnection, callAdmin, runAdminCommand } from '../admin-client.js';
import { EXIT, type CommandIo } from '../io.js';

export const KEYS_USAGE = `usage: token-gateway keys rotate [--drop-previous] [--emergency] [--config FILE] [--admin URL]
  The published next key takes over, on every instance sharing the store, as soon as every
  cached copy of the JWKS holds it (at once, unless it was published within the JWKS cache
  lifetime: then the current key signs until the time printed), and the key after it is
  published now. Earlier keys stay published until the tokens they signed have expired, so
  nothing already issued breaks. The command returns once every live instance has installed
  the new keys; exit code 3 says some instance could not confirm it (they are named).
  --drop-previous unpublishes every key that signed before (a leaked key): every access token
  they signed is refused from then on, and clients must refresh or log in again. It needs a
  next key that may sign at once; if it was published too recently, it says from when.
  --emergency signs with a brand-new key at once instead of the published next one: resource
  servers that cache the JWKS refuse the new tokens until they fetch it again (up to its
  max-age). With --drop-previous: a leaked key, replaced and refused at once.
${ADMIN_CONNECTION_USAGE}`;

/** POST /admin/v1/keys/rotate as docs/operations.md gives it: what the command prints and decides its exit code by. */
const ROTATION_ANSWER = z.looseObject({
  kid: z.string(),
  signsFrom: z.string(),
  signingNow: z.boolean(),
  previousKid: z.string(),
  nextKid: z.string(),
  nextSignsFrom: z.string(),
  published: z.array(z.string()),
  dropped: z.array(z.string()),
  confirmedEverywhere: z.boolean(),
  confirmed: z.array(z.string()),
  note: z.string().optional(),
  warning: z.string().optional(),
});

/** `token-gateway keys rotate`: POST /admin/v1/keys/rotate. */
export function keysCommand(args: readonly string[], io: CommandIo): Promise<number> {
  return runAdminCommand('keys', KEYS_USAGE, args, io, async () => {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { ...ADMIN_CONNECTION_OPTIONS, 'drop-previous': { type: 'boolean' }, emergency: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length !== 1 || positionals[0] !== 'rotate') {
      throw new CommandLineError(positionals.length === 0 ? 'say what to do with the keys: rotate' : `unknown keys command "${positionals.join(' ')}"`);
    }
    const connection = await adminConnection(values);
    const input = { ...(values['drop-previous'] ? { drop_previous: true } : {}), ...(values.emergency ? { immediate: true } : {}) };
    const answer = await callAdmin(connection, 'POST', '/admin/v1/keys/rotate', input, ROTATION_ANSWER);
    io.stdout.write(
      `new signing key: ${answer.kid} (signs ${answer.signingNow ? 'from' : 'only from'} ${answer.signsFrom})\n` +
        (answer.signingNow ? '' : `until then:      ${answer.previousKid} goes on signing\n`) +
        `next key:        ${answer.nextKid} (published, signs from ${answer.nextSignsFrom})\n` +
        `published keys:  ${answer.published.join(', ')}\n` +
        (answer.dropped.length > 0 ? `dropped keys:    ${answer.dropped.join(', ')}\n` : '') +
        `confirmed by:    ${answer.confirmed.join(', ') || 'no instance'}\n`,
    );
    if (answer.note) io.stderr.write(`note: ${answer.note}\n`);
    if (answer.warning) io.stderr.write(`WARNING: ${answer.warning}\n`);
    return answer.confirmedEverywhere ? EXIT.ok : EXIT.unconfirmed;
  });
}
