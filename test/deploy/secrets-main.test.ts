import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const MAIN = resolve('dist/deploy/secrets-main.js');

function runMain(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('node dist/deploy/secrets-main.js DIR (the compose file\'s `secrets` service)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'token-gateway-secrets-')), 'secrets');
  });
  afterEach(() => rm(join(dir, '..'), { recursive: true, force: true }));

  it('says what it created or kept and never prints a secret', async () => {
    const first = await runMain([dir]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toBe(`created ${join(dir, 'key-encryption-key')} (keys.encryption_key_file)\ncreated ${join(dir, 'admin-token')} (admin.token_file)\n`);
    const second = await runMain([dir]);
    expect(second.stdout).toMatch(/^kept .*key-encryption-key.*\nkept .*admin-token/);
    for (const file of ['key-encryption-key', 'admin-token']) {
      const secret = (await readFile(join(dir, file), 'utf8')).trim();
      expect(first.stdout + second.stdout).not.toContain(secret);
    }
  });
  it('refuses to run without exactly one folder', async () => {
    expect(await runMain([])).toMatchObject({ code: 2, stderr: expect.stringContaining('usage:') });
  });
});
