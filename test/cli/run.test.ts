import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/admin-cli.js';
import { BIN, runCli } from '../helpers/processes.js';

describe('token-gateway CLI', () => {
  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` (npm test does it)`);
  });

  it.each([
    [['bogus'], 'unknown command'],
    [['serve', '--port', 'eighty'], '--port must be a whole number'],
    [['check', '--nope'], "Unknown option '--nope'"],
    [[], 'usage: token-gateway'],
  ])('exits 2 with usage for %j', async (args, message) => {
    const { code, stdout, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stdout + stderr).toContain(message);
  });
});

describe('--help, on every command', () => {
  // In-process: `serve --help` must print its usage rather than start a gateway.
  const commands = [['serve'], ['check'], ['hash-secret'], ['users'], ['apps'], ['import'], ['policy'], ['keys'], ['revoke'], ['grants']];
  for (const command of commands) {
    for (const flag of ['--help', '-h']) {
      it(`${command.join(' ')} ${flag}: its usage on standard output, exit 0`, async () => {
        const outcome = await cli(...command, flag);
        expect(outcome).toMatchObject({ code: 0, stderr: '' });
        expect(outcome.stdout).toMatch(new RegExp(`^usage: token-gateway ${command.join(' ')}[ \\n]`));
      });
    }
  }

  it('a command-line mistake of serve, check or hash-secret shows that command\'s usage', async () => {
    for (const command of ['serve', 'check', 'hash-secret']) {
      const outcome = await cli(command, '--nope');
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toContain(`token-gateway ${command}: Unknown option '--nope'`);
      expect(outcome.stderr).toContain(`usage: token-gateway ${command} `);
    }
  });
});
