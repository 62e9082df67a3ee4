import { accountsSchema } from '../../accounts/schema.js';
import { ConfigError, formatIssue, StartupError } from '../../config/errors.js';
import { loadGatewayConfig } from '../../config/load.js';
import { describeStore } from '../../config/store-schema.js';
import { loadYamlFile } from '../../config/yaml-file.js';
import { adminAccessOf } from '../../admin/access.js';
import { readTlsCredentials } from '../../listeners/tls-listener.js';
import { loadPolicySetOffline } from '../../policies/offline.js';
import { keySealerFor } from '../../keys/sealing.js';
import { EXIT, type CommandIo } from '../io.js';

/**
 * Validates gateway.yaml, every file it names (the admin token and TLS
 * files included), and (for Redis) that the secrets it needs can be read;
 * each problem on its own line: whatever would stop `serve` at start. It
 * does not connect to Redis: a check must not depend on the network.
 */
export async function checkCommand(configFile: string, io: CommandIo): Promise<number> {
  try {
    const config = await loadGatewayConfig(configFile);
    const accounts = await loadYamlFile(config.accounts, accountsSchema);
    const policies = await loadPolicySetOffline(config, accounts.apps);
    await keySealerFor(config);
    if (config.tls) await readTlsCredentials(config.tls);
    // The admin token is read at start too: a missing or short one would stop `serve`.
    await adminAccessOf(config);
    io.stdout.write(
      `ok: ${configFile} (${config.routes.length} routes, store ${describeStore(config.store)}), ` +
        `${config.accounts} (${accounts.users.length} users, ${accounts.apps.length} apps), ` +
        `${config.policies.folder} (${policies.policies.size} policies)\n`,
    );
    return EXIT.ok;
  } catch (error) {
    if (error instanceof StartupError) {
      io.stderr.write(`${configFile}: ${error.message}\n`);
      return EXIT.invalid;
    }
    if (!(error instanceof ConfigError)) throw error;
    for (const issue of error.issues) io.stderr.write(`${formatIssue(issue)}\n`);
    return EXIT.invalid;
  }
}
