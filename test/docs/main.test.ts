import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GENERATED_PAGES, regeneratePage } from '../../src/docs/pages.js';

/**
 * `npm run docs`: node dist/docs/main.js, as built (npm test builds first),
 * run from a copy of dist/ in a temporary folder so that it rewrites the
 * copies of the pages there and never the repository's own.
 */
let root: string;
const fresh = new Map<string, string>();

function runDocs(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(root, 'dist', 'docs', 'main.js')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const page = (name: string) => join(root, name);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tg-docs-'));
  await cp(resolve('dist'), join(root, 'dist'), { recursive: true });
  await symlink(resolve('node_modules'), join(root, 'node_modules'), 'dir');
  await writeFile(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  for (const generated of GENERATED_PAGES) fresh.set(generated.page, regeneratePage(generated, await readFile(resolve(generated.page), 'utf8')));
});
beforeEach(async () => {
  for (const [name, text] of fresh) {
    await mkdir(dirname(page(name)), { recursive: true });
    await writeFile(page(name), text);
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('docs/main: npm run docs', () => {
  it('says every page is up to date, and writes nothing, when the code has not changed', async () => {
    const { code, stdout } = await runDocs();
    expect(code).toBe(0);
    expect(stdout).toBe(GENERATED_PAGES.map((generated) => `${generated.page}: up to date\n`).join(''));
    for (const [name, text] of fresh) expect(await readFile(page(name), 'utf8')).toBe(text);
  });

  it('rewrites a page whose table went stale, and that page only', async () => {
    const stale = fresh.get('docs/errors.md')!.replace(/\| `ACCESS_TOKEN_INVALID` \| 401 \|/, '| `ACCESS_TOKEN_INVALID` | 400 |');
    expect(stale).not.toBe(fresh.get('docs/errors.md'));
    await writeFile(page('docs/errors.md'), stale);
    const { code, stdout } = await runDocs();
    expect(code).toBe(0);
    expect(stdout.split('\n').filter((line) => line.endsWith(': updated'))).toEqual(['docs/errors.md: updated']);
    expect(await readFile(page('docs/errors.md'), 'utf8')).toBe(fresh.get('docs/errors.md'));
  });

  it('fails, naming the page and the markers, when a page lost a region', async () => {
    await writeFile(page('docs/operations.md'), fresh.get('docs/operations.md')!.replace('<!-- generated:reload-rules:start -->', ''));
    const { code, stderr } = await runDocs();
    expect(code).not.toBe(0);
    expect(stderr).toContain('docs/operations.md has no region <!-- generated:reload-rules:start --> ... <!-- generated:reload-rules:end -->');
  });
});
