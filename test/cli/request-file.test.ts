import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRequestFile, RequestFileError } from '../../src/cli/request-file.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tg-request-file-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

async function fileWith(name: string, text: string): Promise<string> {
  const file = join(folder, name);
  await writeFile(file, text);
  return file;
}

describe('readRequestFile: HAR or curl, told apart by their first character', () => {
  it('reads JSON as HAR, a byte-order mark and blank lines before it included', async () => {
    const file = await fileWith('a.har', `\uFEFF\n  ${JSON.stringify({ request: { method: 'GET', url: 'http://h/x' } })}`);
    expect((await readRequestFile(file)).target).toBe('/x');
  });

  it('reads a command that starts with curl as a curl command line', async () => {
    const file = await fileWith('a.sh', "\ncurl 'http://h/y?z=1'\n");
    expect((await readRequestFile(file)).target).toBe('/y?z=1');
  });

  it.each([
    ['anything else', 'b.txt', 'GET /x HTTP/1.1', (file: string) => `${file} is neither a HAR entry (JSON) nor a curl command line (it should start with "curl" or "{")`],
    ['an empty file', 'c.txt', '', (file: string) => `${file} is neither a HAR entry (JSON) nor a curl command line (it should start with "curl" or "{")`],
  ])('refuses %s, saying what it expected', async (_case, name, text, message) => {
    const file = await fileWith(name, text);
    const error = await readRequestFile(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestFileError);
    expect((error as Error).message).toBe(message(file));
  });

  it('says a file cannot be read, with the reason', async () => {
    await expect(readRequestFile(join(folder, 'missing.har'))).rejects.toThrow(`cannot read ${join(folder, 'missing.har')} (ENOENT)`);
  });
});
