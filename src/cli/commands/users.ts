import { parseArgs } from 'node:util';
import { CommandLineError } from '../command-errors.js';
import { AccountEditRefused } from '../../accounts/accounts-document.js';
import { editAccountsFile, readAccountsDocument } from '../../accounts/accounts-file.js';
import { hashSecret } from '../../accounts/secret-hash.js';
import {
  actionAndName,
  assertAccountName,
  
  editOptions,
  resolveTarget,
  runAccountCommand,
  setStatus,
  TARGET_OPTIONS,
  TARGET_USAGE,
} from '../account-edits.js';
import { EXIT, type CommandIo } from '../io.js';
import { readSecret } from '../read-secret.js';

export const USERS_USAGE = `usage: token-gateway users <subcommand> USERNAME [options]
  add USERNAME [--status S]   add a developer account (status active unless told); its password is read
                              from standard input, like hash-secret, and only its argon2id hash is stored
  disable USERNAME            set its status to disabled: it can no longer get or refresh tokens
  enable USERNAME             set its status to active
  set-password USERNAME       replace its password, read from standard input
${TARGET_USAGE}`;

const ACTIONS = ['add', 'disable', 'enable', 'set-password'] as const;

/** `token-gateway users ...`: edits the developer accounts of accounts.yaml (a running gateway picks them up on reload). */
export async function usersCommand(args: readonly string[], io: CommandIo): Promise<number> {
  const label = ACTIONS.find((action) => action === args[0]) ? `users ${args[0]}` : 'users';
  return runAccountCommand(label, USERS_USAGE, io, async () => {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { ...TARGET_OPTIONS, status: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.stdout.write(`${USERS_USAGE}\n`);
      return EXIT.ok;
    }
    const { action, name } = actionAndName(positionals, ACTIONS);
    if (values.status !== undefined && action !== 'add') throw new CommandLineError('--status is for add; use disable or enable afterwards');
    if (action === 'add') assertAccountName('username', name);
    const { file } = await resolveTarget(values);
    switch (action) {
      case 'add':
        return addUser(io, file, name, values.status ?? 'active');
      case 'disable':
        return setStatus(io, file, 'user', name, 'disabled');
      case 'enable':
        return setStatus(io, file, 'user', name, 'active');
      case 'set-password':
        return setPassword(io, file, name);
    }
  });
}

async function addUser(io: CommandIo, file: string, username: string, status: string): Promise<number> {
  assertAccountName('status', status);
  // Asked before the prompt, so nobody types a password for a name that is taken; decided again under the lock.
  (await readAccountsDocument(file)).assertAbsent('user', username);
  const hash = await hashSecret(await readPassword(io, username));
  await editAccountsFile(file, (document) => document.add('user', { name: username, hash, status }), editOptions(io, file));
  io.stdout.write(`added user ${username} (${status})\n`);
  return EXIT.ok;
}

async function setPassword(io: CommandIo, file: string, username: string): Promise<number> {
  (await readAccountsDocument(file)).statusOf('user', username);
  const hash = await hashSecret(await readPassword(io, username));
  await editAccountsFile(file, (document) => document.set('user', username, 'hash', hash), editOptions(io, file));
  io.stdout.write(`changed the password of user ${username}\n`);
  return EXIT.ok;
}

async function readPassword(io: CommandIo, username: string): Promise<string> {
  const password = await readSecret(io, `Password for ${username}`);
  if (password === '') throw new AccountEditRefused('the password is empty');
  return password;
}
