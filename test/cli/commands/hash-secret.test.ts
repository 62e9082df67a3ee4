import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifySecret } from '../../../src/accounts/secret-hash.js';
import { BIN, runCli } from '../../helpers/processes.js';

describe('token-gateway hash-secret', () => {
  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` (npm test does it)`);
  });

  it('prints only an argon2id hash of stdin without its trailing newline', async () => {
    const { code, stdout, stderr } = await runCli(['hash-secret'], 'correct horse\n');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\$argon2id\$/);
    expect(await verifySecret(lines[0]!, 'correct horse')).toBe(true);
    expect(await verifySecret(lines[0]!, 'correct horse\n')).toBe(false);
  });

  it('keeps inner and leading whitespace, strips only one CRLF', async () => {
    const { stdout } = await runCli(['hash-secret'], ' two words \r\n');
    expect(await verifySecret(stdout.trim(), ' two words ')).toBe(true);
  });

  it('refuses an empty secret', async () => {
    const { code, stdout, stderr } = await runCli(['hash-secret'], '\n');
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('empty');
  });
});
