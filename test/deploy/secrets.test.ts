import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureSecrets } from '../../src/deploy/secrets.js';
import { loadKeyEncryptionKey } from '../../src/keys/sealing.js';

describe('deploy secrets (the compose file\'s one-shot `secrets` service)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'token-gateway-secrets-')), 'secrets');
  });
  afterEach(() => rm(join(dir, '..'), { recursive: true, force: true }));

  it('creates a key-encryption key the gateway accepts and an admin token, readable by their owner only', async () => {
    const outcomes = await ensureSecrets(dir);
    expect(outcomes.map(({ outcome, configKey }) => [configKey, outcome])).toEqual([
      ['keys.encryption_key_file', 'created'],
      ['admin.token_file', 'created'],
    ]);
    expect(await loadKeyEncryptionKey(join(dir, 'key-encryption-key'))).toHaveLength(32);
    expect((await readFile(join(dir, 'admin-token'), 'utf8')).trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    for (const file of ['key-encryption-key', 'admin-token']) expect((await stat(join(dir, file))).mode & 0o777).toBe(0o400);
  });

  it('never replaces a secret that exists (a new key-encryption key would orphan the sealed keys in Redis)', async () => {
    await ensureSecrets(dir);
    const before = await readFile(join(dir, 'key-encryption-key'), 'utf8');
    await rm(join(dir, 'admin-token'));
    const outcomes = await ensureSecrets(dir);
    expect(outcomes.map((entry) => entry.outcome)).toEqual(['kept', 'created']);
    expect(await readFile(join(dir, 'key-encryption-key'), 'utf8')).toBe(before);
  });

  it('keeps an operator\'s own key as it is', async () => {
    await ensureSecrets(dir, []);
    await writeFile(join(dir, 'key-encryption-key'), 'an operator-provided value\n');
    await ensureSecrets(dir);
    expect(await readFile(join(dir, 'key-encryption-key'), 'utf8')).toBe('an operator-provided value\n');
  });
});
