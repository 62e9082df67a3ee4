import type { Readable, Writable } from 'node:stream';

/** The streams a command uses, injected so tests can run commands in-process. */
export interface CommandIo {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable;
  stderr: Writable;
}

/**
 * Exit codes: 0 done, 1 the input (config, secret) is wrong, 2 the command
 * line is wrong, 3 done but not confirmed by every instance (a key rotation
 * some instance could not acknowledge).
 */
export const EXIT = { ok: 0, invalid: 1, usage: 2, unconfirmed: 3 } as const;

export const DEFAULT_CONFIG_FILE = 'gateway.yaml';
