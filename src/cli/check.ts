import { accountsSchema } from '../accounts/schema.js';
import { ConfigError, formatIssue } from '../config/errors.js';
import { loadGatewayConfig } from '../config/load.js';
import { loadYamlFile } from '../config/yaml-file.js';
import { EXIT, type CommandIo } from './io.js';

/** Validates gateway.yaml and every file it names; each problem on its own line as file:line: key: problem. */
export async function checkCommand(configFile: string, io: CommandIo): Promise<number> {
  try {
    const config = await loadGatewayConfig(configFile);
    const accounts = await loadYamlFile(config.accounts, accountsSchema);
    io.stdout.write(
      `ok: ${configFile} (${config.routes.length} routes), ${config.accounts} (${accounts.users.length} users, ${accounts.apps.length} apps)\n`,
    );
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const issue of error.issues) io.stderr.write(`${formatIssue(issue)}\n`);
    return EXIT.invalid;
  }
}
