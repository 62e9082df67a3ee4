import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
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
