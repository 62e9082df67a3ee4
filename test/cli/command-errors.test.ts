import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CommandFailed, CommandLineError, runCommand } from '../../src/cli/command-errors.js';
import { ConfigError, StartupError } from '../../src/config/errors.js';

class LockHeld extends Error {}

async function outcome(command: () => Promise<number>, failures = {}) {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const code = await runCommand('users', 'usage: token-gateway users ...', { stdin: Readable.from([]), stdout: new PassThrough(), stderr }, command, failures);
  return { code, stderr: text };
}

describe('runCommand: one clear line and an exit code for every failure a command expects', () => {
  it("passes the command's own exit code through", async () => {
    expect(await outcome(async () => 0)).toEqual({ code: 0, stderr: '' });
  });

  it.each([
    ['a CommandLineError', () => new CommandLineError('give a USERNAME'), 2, 'token-gateway users: give a USERNAME\n\nusage: token-gateway users ...\n'],
    ['a parseArgs error', () => Object.assign(new TypeError("Unknown option '--x'"), { code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }), 2, "token-gateway users: Unknown option '--x'\n\nusage: token-gateway users ...\n"],
    ['a CommandFailed', () => new CommandFailed('no gateway answers'), 1, 'token-gateway users: no gateway answers\n'],
    ['a StartupError', () => new StartupError('cannot read the token'), 1, 'token-gateway users: cannot read the token\n'],
  ])('%s: exit %i', async (_case, error, code, stderr) => {
    expect(await outcome(async () => Promise.reject(error()))).toEqual({ code, stderr });
  });

  it("a ConfigError: each issue as file:line: key: problem, then what the command adds, exit 1", async () => {
    const error = new ConfigError([
      { file: 'accounts.yaml', line: 3, key: 'users[0].status', message: 'must not be empty' },
      { file: 'gateway.yaml', key: '', message: 'cannot read file (ENOENT)' },
    ]);
    expect(await outcome(async () => Promise.reject(error), { afterConfigIssues: 'nothing was changed' })).toEqual({
      code: 1,
      stderr: 'accounts.yaml:3: users[0].status: must not be empty\ngateway.yaml: cannot read file (ENOENT)\ntoken-gateway users: nothing was changed\n',
    });
  });

  it('an error the command says it expects: exit 1 with its message', async () => {
    expect(await outcome(async () => Promise.reject(new LockHeld('another edit holds the lock')), { expected: [LockHeld] })).toEqual({
      code: 1,
      stderr: 'token-gateway users: another edit holds the lock\n',
    });
  });

  it('anything else is a defect and is thrown on', async () => {
    const defect = new RangeError('bug');
    await expect(outcome(async () => Promise.reject(defect))).rejects.toBe(defect);
    await expect(outcome(async () => Promise.reject(new LockHeld('x')))).rejects.toBeInstanceOf(LockHeld);
  });
});
