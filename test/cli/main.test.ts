import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/processes.js';

describe('token-gateway (dist/cli/main.js, the installed binary)', () => {
  it('runs the command and exits with its code', async () => {
    expect(await runCli(['help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('usage: token-gateway <command>') });
    expect(await runCli(['bogus'])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown command "bogus"') });
  });
  // Holding a SIGHUP from main's first line is tested where it can be timed: commands/serve.test.ts holds the start at a FIFO.
});
