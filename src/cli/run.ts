import { parseArgs } from 'node:util';
import { CommandLineError } from './command-errors.js';
import { appsCommand } from './commands/apps.js';
import { CHECK_USAGE, checkCommand } from './commands/check.js';
import { grantsCommand } from './commands/grants.js';
import { HASH_SECRET_USAGE, hashSecretCommand } from './commands/hash-secret.js';
import { IMPORT_USAGE, importCommand } from './commands/import.js';
import { DEFAULT_CONFIG_FILE, EXIT, type CommandIo } from './io.js';
import { keysCommand } from './commands/keys.js';
import { policyCommand } from './commands/policy.js';
import { revokeCommand } from './commands/revoke.js';
import { SERVE_USAGE, serveCommand } from './commands/serve.js';
import { usersCommand } from './commands/users.js';

const USAGE = `usage: token-gateway <command> [options]

commands:
  serve [--config FILE] [--port N]   run the gateway (default config: ./gateway.yaml)
  hash-secret                        hash a password or client secret read from standard input
  check [--config FILE]              validate the config and the files it names
  users add|disable|enable|set-password USERNAME [--config FILE | --accounts FILE]
                                     edit the developer accounts in accounts.yaml (\`users --help\`)
  apps add|disable|enable|rotate-secret CLIENT_ID [--config FILE | --accounts FILE]
                                     edit the applications in accounts.yaml (\`apps --help\`)
  import apigee BUNDLE... --out DIR [--force]
                                     policy files and gateway.yaml routes from Apigee proxy bundles (folders or .zip)
  policy test [--config FILE] [--route PATH | --endpoint PATH] [--method M] [--path P] [--header 'Name: value']...
              [--body TEXT | --body-file F] [--client-address IP] [--client-id ID] [--user NAME] [--at ISO-TIME]
              [--request-file F] [--json]
                                     a dry run: each policy's verdict on one request and why, without a gateway
                                     (exit 0 pass, 1 refused, 2 bad input; \`policy --help\`)

admin commands (they call a running gateway's admin API; each also takes [--config FILE] [--admin URL]):
  keys rotate [--drop-previous] [--emergency]
                                     sign with a new key from now on (--drop-previous: refuse every token signed before;
                                     --emergency: a brand-new key at once; \`keys rotate --help\`)
  revoke --user NAME | --client ID   the kill switch: revoke every active grant of a user or of a client
  grants [--user NAME] [--client ID] [--limit N] [--json]   list the active grants (logins), newest first
`;

/** Runs one command; resolves with an exit code, or with `running` for a server that keeps going. */
export async function run(argv: readonly string[], io: CommandIo): Promise<number | 'running'> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve': {
        const { values } = parseArgs({ args: [...rest], options: { config: { type: 'string' }, port: { type: 'string' }, ...HELP_OPTION }, strict: true });
        if (values.help) return printUsage(io, SERVE_USAGE);
        const port = values.port === undefined ? undefined : parsePort(values.port);
        const outcome = await serveCommand({ configFile: values.config ?? DEFAULT_CONFIG_FILE, port }, io);
        return typeof outcome === 'number' ? outcome : 'running';
      }
      case 'hash-secret': {
        const { values } = parseArgs({ args: [...rest], options: HELP_OPTION, strict: true });
        if (values.help) return printUsage(io, HASH_SECRET_USAGE);
        return await hashSecretCommand(io);
      }
      case 'check': {
        const { values } = parseArgs({ args: [...rest], options: { config: { type: 'string' }, ...HELP_OPTION }, strict: true });
        if (values.help) return printUsage(io, CHECK_USAGE);
        return await checkCommand(values.config ?? DEFAULT_CONFIG_FILE, io);
      }
      case 'keys':
        return await keysCommand(rest, io);
      case 'revoke':
        return await revokeCommand(rest, io);
      case 'grants':
        return await grantsCommand(rest, io);
      case 'users':
        return await usersCommand(rest, io);
      case 'apps':
        return await appsCommand(rest, io);
      case 'policy':
        return await policyCommand(rest, io);
      case 'import':
        if (rest.includes('--help') || rest.includes('-h')) {
          io.stdout.write(IMPORT_USAGE);
          return EXIT.ok;
        }
        return await importCommand(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(USAGE);
        return command === undefined ? EXIT.usage : EXIT.ok;
      default:
        io.stderr.write(`token-gateway: unknown command "${command}"\n\n${USAGE}`);
        return EXIT.usage;
    }
  } catch (error) {
    if (error instanceof CommandLineError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`token-gateway ${command}: ${(error as Error).message}\n\n${COMMAND_USAGES[command ?? ''] ?? USAGE}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

/** Every command takes --help (or -h): its usage on standard output, exit 0. */
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/** The usage shown with a command-line mistake of the commands parsed here (the others show their own). */
const COMMAND_USAGES: Readonly<Record<string, string>> = { serve: SERVE_USAGE, check: CHECK_USAGE, 'hash-secret': HASH_SECRET_USAGE, import: IMPORT_USAGE };

function printUsage(io: CommandIo, usage: string): number {
  io.stdout.write(`${usage}\n`);
  return EXIT.ok;
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new CommandLineError(`--port must be a whole number from 0 to 65535, got "${text}"`);
  return port;
}
