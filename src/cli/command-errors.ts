import { ConfigError, formatIssue, StartupError } from '../config/errors.js';
import { EXIT, type CommandIo } from './io.js';

/** The command line is wrong: exit 2, with the usage. */
export class CommandLineError extends Error {
  override readonly name = 'CommandLineError';
}

/** The command could not do what it was asked (the admin listener unreachable or refusing): exit 1 with this sentence. */
export class CommandFailed extends Error {
  override readonly name = 'CommandFailed';
}

export interface CommandFailures {
  /** Said after a config's issues (an accounts edit: "nothing was changed"). */
  afterConfigIssues?: string;
  /** Other failures the command expects, told in one line with exit 1 (a refused edit, a lock held elsewhere). */
  expected?: ReadonlyArray<abstract new (...args: never[]) => Error>;
}

/**
 * Runs one command, turning every failure it expects into one clear line on
 * standard error and its exit code: 2 for the command line (with the usage),
 * 1 for the input, a file or the operation. Anything else is a defect and is
 * thrown on.
 */
export async function runCommand(label: string, usage: string, io: CommandIo, command: () => Promise<number>, failures: CommandFailures = {}): Promise<number> {
  try {
    return await command();
  } catch (error) {
    if (error instanceof CommandLineError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`token-gateway ${label}: ${(error as Error).message}\n\n${usage}\n`);
      return EXIT.usage;
    }
    if (error instanceof ConfigError) {
      for (const issue of error.issues) io.stderr.write(`${formatIssue(issue)}\n`);
      if (failures.afterConfigIssues) io.stderr.write(`token-gateway ${label}: ${failures.afterConfigIssues}\n`);
      return EXIT.invalid;
    }
    if (error instanceof CommandFailed || error instanceof StartupError || failures.expected?.some((type) => error instanceof type)) {
      io.stderr.write(`token-gateway ${label}: ${(error as Error).message}\n`);
      return EXIT.invalid;
    }
    throw error;
  }
}
