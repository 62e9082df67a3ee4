import type { Readable, Writable } from 'node:stream';

/** The streams a command uses, injected so tests can run commands in-process. */
export interface CommandIo {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable;
  stderr: Writable;
}

/** Exit codes: 0 done, 1 the input (config, secret) is wrong, 2 the command line is wrong. */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

export const DEFAULT_CONFIG_FILE = 'gateway.yaml';
