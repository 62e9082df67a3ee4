import { accountsSchema, type AccountsFile } from '../../accounts/schema.js';
import { adminAccessOf } from '../../admin/access.js';
import { ConfigError, formatIssue, StartupError } from '../../config/errors.js';
import { loadGatewayConfig, namedIn } from '../../config/load.js';
import { describeStore } from '../../config/store-schema.js';
import { loadYamlFile } from '../../config/yaml-file.js';
import { keySealerFor } from '../../keys/sealing.js';
import { readTlsCredentials } from '../../listeners/tls-listener.js';
import { loadPolicySetOffline } from '../../policies/offline.js';
import { redisPassword } from '../../store/redis/connection.js';
import { EXIT, type CommandIo } from '../io.js';

export const CHECK_USAGE = `usage: token-gateway check [--config FILE]
  Validates the config and every file it names (accounts, policies, the TLS pair, admin.token_file, the Redis
  secrets) without connecting to anything; prints ok, or each problem as file:line: key: problem (exit 1).
  --config FILE   the gateway's config (default ./gateway.yaml)`;

/**
 * Validates gateway.yaml, every file it names (accounts, policies, the TLS
 * pair, the admin token) and, for Redis, that the secrets it needs can be
 * read: whatever would stop `serve` at start, each problem on its own line.
 * Every check runs once gateway.yaml itself is valid, so one run lists every
 * problem rather than the first. It does not connect to Redis: a check must
 * not depend on the network.
 */
export async function checkCommand(configFile: string, io: CommandIo): Promise<number> {
  let config;
  try {
    config = await loadGatewayConfig(configFile);
  } catch (error) {
    return reportProblems(configFile, [error], io);
  }
  const problems: unknown[] = [];
  const attempt = async <T>(step: () => Promise<T> | T): Promise<T | undefined> => {
    try {
      return await step();
    } catch (error) {
      problems.push(error);
      return undefined;
    }
  };
  const accounts: AccountsFile | undefined = await attempt(() => loadYamlFile(config.accounts, accountsSchema, namedIn(config, 'accounts')));
  // Policies attach to apps too: without a readable accounts file they are checked against none.
  const policies = await attempt(() => loadPolicySetOffline(config, accounts?.apps ?? []));
  await attempt(() => keySealerFor(config));
  if (config.store.kind === 'redis') {
    const store = config.store;
    await attempt(() => redisPassword(store));
  }
  if (config.tls) {
    const tls = config.tls;
    await attempt(() => readTlsCredentials(tls));
  }
  // The admin token is read at start too: a missing or short one would stop `serve`.
  await attempt(() => adminAccessOf(config));
  if (problems.length > 0 || !accounts || !policies) return reportProblems(configFile, problems, io);
  io.stdout.write(
    `ok: ${configFile} (${config.routes.length} routes, store ${describeStore(config.store)}), ` +
      `${config.accounts} (${accounts.users.length} users, ${accounts.apps.length} apps), ` +
      `${config.policies.folder} (${policies.policies.size} policies)\n`,
  );
  return EXIT.ok;
}

/** One line per problem on standard error; a failure that is not a configuration problem is a defect, thrown on. */
function reportProblems(configFile: string, problems: readonly unknown[], io: CommandIo): number {
  for (const problem of problems) {
    if (problem instanceof StartupError) io.stderr.write(`${configFile}: ${problem.message}\n`);
    else if (problem instanceof ConfigError) for (const issue of problem.issues) io.stderr.write(`${formatIssue(issue)}\n`);
    else throw problem;
  }
  return EXIT.invalid;
}
