import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConcurrentChange, replaceFileAtomically } from '../../src/accounts/atomic-write.js';

const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

async function fileWith(text: string, mode: number): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'tg-atomic-'));
  folders.push(folder);
  const file = join(folder, 'accounts.yaml');
  await writeFile(file, text);
  await chmod(file, mode);
  return file;
}

describe('replaceFileAtomically', () => {
  it('replaces the file by a rename (a new inode), with the original mode, leaving no temporary file', async () => {
    const file = await fileWith('old\n', 0o640);
    const before = await stat(file);
    await replaceFileAtomically(file, 'new\n', 'old\n');
    const after = await stat(file);
    expect(await readFile(file, 'utf8')).toBe('new\n');
    expect(after.mode & 0o7777).toBe(0o640);
    expect(after.ino).not.toBe(before.ino);
    expect(await readdir(join(file, '..'))).toEqual(['accounts.yaml']);
  });

  it('refuses when the file changed since it was read, and leaves it as the other writer left it', async () => {
    const file = await fileWith('changed by an editor\n', 0o600);
    await expect(replaceFileAtomically(file, 'new\n', 'old\n')).rejects.toThrow(ConcurrentChange);
    expect(await readFile(file, 'utf8')).toBe('changed by an editor\n');
    expect(await readdir(join(file, '..'))).toEqual(['accounts.yaml']);
  });
});
