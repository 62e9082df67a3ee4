import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editAccountsFile, readAccountsDocument } from '../../src/accounts/accounts-file.js';
import { ConfigError } from '../../src/config/errors.js';

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g';
const TEXT = `# ops keep this file\nusers:\n  - username: carol   # partner team\n    password_hash: "${HASH}"\n    status: active\napps: []\n`;

describe('editing accounts.yaml (all or nothing, under its lock)', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-accounts-file-'));
    file = join(dir, 'accounts.yaml');
    await writeFile(file, TEXT);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads the current document for a look before a prompt', async () => {
    const document = await readAccountsDocument(file);
    expect(document.has('user', 'carol')).toBe(true);
    expect(document.statusOf('user', 'carol')).toBe('active');
  });

  it('writes the edit, keeping comments, and returns what the edit returned', async () => {
    const outcome = await editAccountsFile(file, (document) => {
      document.set('user', 'carol', 'status', 'suspended');
      return 'done';
    });
    expect(outcome).toEqual({ value: 'done', written: true });
    expect(await readFile(file, 'utf8')).toBe(TEXT.replace('status: active', 'status: suspended'));
    expect(await readdir(dir)).toEqual(['accounts.yaml']); // no lock or temporary file left
  });

  it('writes nothing when the edit changes nothing', async () => {
    const outcome = await editAccountsFile(file, (document) => document.has('user', 'carol'));
    expect(outcome).toEqual({ value: true, written: false });
    expect(await readFile(file, 'utf8')).toBe(TEXT);
  });

  it('writes nothing when the extra validation refuses the result', async () => {
    const refusal = new ConfigError([{ file, key: 'users', message: 'refused by the test' }]);
    const edit = editAccountsFile(file, (document) => document.set('user', 'carol', 'status', 'suspended'), {
      validate: async () => {
        throw refusal;
      },
    });
    await expect(edit).rejects.toBe(refusal);
    expect(await readFile(file, 'utf8')).toBe(TEXT);
  });

  it('refuses a result the schema refuses, and writes nothing', async () => {
    const edit = editAccountsFile(file, (document) => document.set('user', 'carol', 'hash', 'plain-text'));
    await expect(edit).rejects.toBeInstanceOf(ConfigError);
    expect(await readFile(file, 'utf8')).toBe(TEXT);
  });

  it('says the file cannot be read, as `check` does, naming the file', async () => {
    const missing = join(dir, 'missing.yaml');
    await expect(editAccountsFile(missing, () => undefined)).rejects.toThrow(`${missing}: cannot read file (ENOENT)`);
    await expect(readAccountsDocument(missing)).rejects.toThrow(`${missing}: cannot read file (ENOENT)`);
  });
});
