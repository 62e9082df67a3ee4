import { resolve } from 'node:path';
import { AccountEditRefused, type AccountKind } from '../accounts/accounts-document.js';
import { accountNameProblem } from '../accounts/account-name.js';
import { editAccountsFile, type AccountsEditOptions } from '../accounts/accounts-file.js';
import { ConcurrentChange } from '../accounts/atomic-write.js';
import { LockUnavailable } from '../accounts/file-lock.js';
import { loadGatewayConfig } from '../config/load.js';
import type { GatewayConfig } from '../config/schema.js';
import { CommandLineError, runCommand } from './command-errors.js';
import { DEFAULT_CONFIG_FILE, EXIT, type CommandIo } from './io.js';
import { SecretEntryCancelled } from './read-secret.js';

// What `users` and `apps` share: where the accounts file is, and how failures are told.

export const TARGET_OPTIONS = {
  config: { type: 'string' },
  accounts: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const TARGET_USAGE = `options:
  --config FILE     edit the \`accounts\` file of this gateway.yaml (default ./gateway.yaml)
  --accounts FILE   edit this accounts file (gateway.yaml is then read only if --config is given)`;

export interface AccountsTarget {
  /** Absolute path of the accounts file to edit. */
  file: string;
  /** gateway.yaml, when one was read (`--config`, or the default without `--accounts`). */
  config: GatewayConfig | undefined;
}

/** `--accounts` wins over the config's `accounts` key, resolved the same way `serve` does. */
export async function resolveTarget(values: { config?: string | undefined; accounts?: string | undefined }): Promise<AccountsTarget> {
  if (values.accounts !== undefined) {
    return { file: resolve(values.accounts), config: values.config === undefined ? undefined : await loadGatewayConfig(values.config) };
  }
  const config = await loadGatewayConfig(values.config ?? DEFAULT_CONFIG_FILE);
  return { file: config.accounts, config };
}

/** The subcommand and the one name it acts on. */
export function actionAndName<A extends string>(positionals: readonly string[], actions: readonly A[]): { action: A; name: string } {
  const [action, name, ...extra] = positionals;
  if (action === undefined) throw new CommandLineError(`expected one of ${actions.join(', ')}`);
  if (!(actions as readonly string[]).includes(action)) throw new CommandLineError(`unknown subcommand "${action}"`);
  if (name === undefined) throw new CommandLineError(`${action} needs a name`);
  if (extra.length > 0) throw new CommandLineError(`unexpected "${extra.join(' ')}": ${action} takes one name`);
  return { action: action as A, name };
}

/** Refuses a name (or status) that would be stored but never match what a client sends. */
export function assertAccountName(what: string, name: string): void {
  const problem = accountNameProblem(name);
  if (problem) throw new AccountEditRefused(`${what} ${JSON.stringify(name)} ${problem}`);
}

/** Edit options of every command: a wait for another edit's lock is said, not silent. */
export function editOptions(io: CommandIo, file: string): AccountsEditOptions {
  return { lock: { onBusy: (holder) => io.stderr.write(`waiting for another edit of ${file} to finish (pid ${holder || 'unknown'})\n`) } };
}

/** `disable` and `enable`: sets the status, and says so; setting it again is not an error. */
export async function setStatus(io: CommandIo, file: string, kind: AccountKind, name: string, status: 'active' | 'disabled'): Promise<number> {
  const { written } = await editAccountsFile(file, (document) => document.set(kind, name, 'status', status), editOptions(io, file));
  io.stdout.write(written ? `${status === 'active' ? 'enabled' : 'disabled'} ${kind} ${name}\n` : `${kind} ${name} is already ${status}\n`);
  return EXIT.ok;
}

/**
 * Runs `users ...` or `apps ...`: every expected failure is one message on
 * stderr and its exit code (command-errors.ts). Nothing has been written when
 * it fails.
 */
export function runAccountCommand(label: string, usage: string, io: CommandIo, body: () => Promise<number>): Promise<number> {
  return runCommand(label, usage, io, body, {
    afterConfigIssues: 'nothing was changed',
    expected: [AccountEditRefused, ConcurrentChange, LockUnavailable, SecretEntryCancelled],
  });
}
