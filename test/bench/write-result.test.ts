import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * bench/lib.mjs's writeResult names a result by its day, and a day can hold
 * several runs of one benchmark whose first is already committed and cited
 * by the docs: a later run must never replace it. Run from a temp dir (the
 * results folder is relative to the working directory, as `npm run bench`
 * runs from the checkout).
 */

const LIB = pathToFileURL(resolve('bench/lib.mjs')).href;
const folder = mkdtempSync(join(tmpdir(), 'token-gateway-write-result-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('writeResult', () => {
  it('writes a new file beside a result of the same day instead of over it', () => {
    const results = join(folder, 'bench', 'results');
    mkdirSync(results, { recursive: true });
    const day = new Date().toISOString().slice(0, 10);
    writeFileSync(join(results, `${day}-example.md`), 'the committed run\n');
    const script = `const { writeResult } = await import(${JSON.stringify(LIB)}); for (const n of [2, 3]) console.log(await writeResult('example', 'run ' + n + '\\n'));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: folder, encoding: 'utf8', timeout: 30_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim().split('\n')).toEqual([join('bench', 'results', `${day}-example-2.md`), join('bench', 'results', `${day}-example-3.md`)]);
    expect(readFileSync(join(results, `${day}-example.md`), 'utf8')).toBe('the committed run\n');
    expect(readFileSync(join(results, `${day}-example-3.md`), 'utf8')).toBe('run 3\n');
    expect(readdirSync(results).sort()).toEqual([`${day}-example-2.md`, `${day}-example-3.md`, `${day}-example.md`]);
  });
});
