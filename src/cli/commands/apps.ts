import { parseArgs } from 'node:util';
import { CommandLineError } from '../command-errors.js';
import { editAccountsFile, readAccountsDocument } from '../../accounts/accounts-file.js';
import { generateClientSecret } from '../../accounts/client-secret.js';
import type { AccountsFile } from '../../accounts/schema.js';
import { hashSecret } from '../../accounts/secret-hash.js';
import { ConfigError } from '../../config/errors.js';
import type { GatewayConfig } from '../../config/schema.js';
import { loadPolicySetOffline } from '../../policies/offline.js';
import {
  actionAndName,
  assertAccountName,
  
  editOptions,
  resolveTarget,
  runAccountCommand,
  setStatus,
  TARGET_OPTIONS,
  TARGET_USAGE,
  type AccountsTarget,
} from '../account-edits.js';
import { EXIT, type CommandIo } from '../io.js';

export const APPS_USAGE = `usage: token-gateway apps <subcommand> CLIENT_ID [options]
  add CLIENT_ID [--policies a,b] [--status S]
                              add an application (status active unless told) with a new random client
                              secret; policies must exist in the policies folder (needs gateway.yaml)
  disable CLIENT_ID           set its status to disabled: it can no longer get, refresh or revoke tokens
  enable CLIENT_ID            set its status to active
  rotate-secret CLIENT_ID     replace its client secret with a new random one
  add and rotate-secret print the new secret alone on standard output, once: only its hash is stored.
${TARGET_USAGE}`;

const ACTIONS = ['add', 'disable', 'enable', 'rotate-secret'] as const;

/** `token-gateway apps ...`: edits the applications of accounts.yaml (a running gateway picks them up on reload). */
export async function appsCommand(args: readonly string[], io: CommandIo): Promise<number> {
  const label = ACTIONS.find((action) => action === args[0]) ? `apps ${args[0]}` : 'apps';
  return runAccountCommand(label, APPS_USAGE, io, async () => {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { ...TARGET_OPTIONS, status: { type: 'string' }, policies: { type: 'string', multiple: true } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.stdout.write(`${APPS_USAGE}\n`);
      return EXIT.ok;
    }
    const { action, name } = actionAndName(positionals, ACTIONS);
    if ((values.status !== undefined || values.policies !== undefined) && action !== 'add') {
      throw new CommandLineError('--status and --policies are for add');
    }
    const policies = (values.policies ?? []).flatMap((list) => list.split(',')).map((policy) => policy.trim()).filter(Boolean);
    if (policies.length > 0 && values.accounts !== undefined && values.config === undefined) {
      throw new CommandLineError('--policies needs gateway.yaml (--config FILE) to check that the policies exist');
    }
    if (action === 'add') assertAccountName('client_id', name);
    const target = await resolveTarget(values);
    switch (action) {
      case 'add':
        return addApp(io, target, name, values.status ?? 'active', policies);
      case 'disable':
        return setStatus(io, target.file, 'app', name, 'disabled');
      case 'enable':
        return setStatus(io, target.file, 'app', name, 'active');
      case 'rotate-secret':
        return rotateSecret(io, target.file, name);
    }
  });
}

async function addApp(io: CommandIo, target: AccountsTarget, clientId: string, status: string, policies: readonly string[]): Promise<number> {
  assertAccountName('status', status);
  (await readAccountsDocument(target.file)).assertAbsent('app', clientId);
  const secret = generateClientSecret();
  const hash = await hashSecret(secret);
  const validate = policies.length > 0 && target.config ? policiesExist(target.config, target.file) : undefined;
  await editAccountsFile(target.file, (document) => document.add('app', { name: clientId, hash, status, policies }), {
    ...editOptions(io, target.file),
    validate,
  });
  const attached = policies.length > 0 ? `, policies ${policies.join(', ')}` : '';
  io.stderr.write(`added app ${clientId} (${status}${attached}); its client secret is on standard output and cannot be shown again\n`);
  printSecretOnce(io, secret);
  return EXIT.ok;
}

async function rotateSecret(io: CommandIo, file: string, clientId: string): Promise<number> {
  (await readAccountsDocument(file)).statusOf('app', clientId);
  const secret = generateClientSecret();
  const hash = await hashSecret(secret);
  await editAccountsFile(file, (document) => document.set('app', clientId, 'hash', hash), editOptions(io, file));
  io.stderr.write(
    `rotated the client secret of app ${clientId}: the old one is refused once the gateway loads accounts.yaml again; ` +
      'the new one is on standard output and cannot be shown again\n',
  );
  printSecretOnce(io, secret);
  return EXIT.ok;
}

/** The only line on stdout, written after the file is safely replaced, so `secret=$(token-gateway apps add ...)` captures it alone. */
function printSecretOnce(io: CommandIo, secret: string): void {
  io.stdout.write(`${secret}\n`);
}

/**
 * The same policy check as `token-gateway check` and `serve`, on the edited
 * apps. Lines are dropped for accounts.yaml: they would point into the file
 * on disk, which does not hold the new app yet.
 */
function policiesExist(config: GatewayConfig, file: string): (accounts: AccountsFile) => Promise<void> {
  return async (accounts) => {
    try {
      await loadPolicySetOffline({ ...config, accounts: file }, accounts.apps);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new ConfigError(error.issues.map((issue) => (issue.file === file ? { ...issue, line: undefined } : issue)));
    }
  };
}
