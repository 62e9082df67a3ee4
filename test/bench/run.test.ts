import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a benchmark script in plain JavaScript, without type declarations
import { isMainScript } from '../../bench/lib.mjs';

/*
 * bench/README.md tells readers to run a benchmark on its own (`node bench/<name>.mjs`). A script whose main block is
 * missing exits 0 having measured nothing, which is worse than failing: revocation-propagation.mjs did, until this
 * test. Every benchmark `npm run bench` runs (the imports of bench/run.mjs) must call its own export when run
 * directly.
 */
const run = readFileSync('bench/run.mjs', 'utf8');
const benchmarks = [...run.matchAll(/^import \{ (\w+) \} from '\.\/([\w-]+)\.mjs';$/gm)].map(([, name, file]) => ({ name: name as string, file: file as string }));

describe('bench scripts', () => {
  it('finds the benchmarks npm run bench runs', () => {
    expect(benchmarks.map(({ file }) => file)).toContain('revocation-propagation');
    expect(benchmarks.length).toBeGreaterThanOrEqual(10);
  });

  it.each(benchmarks)('$file.mjs runs $name() when run on its own', ({ name, file }) => {
    const source = readFileSync(`bench/${file}.mjs`, 'utf8');
    // The main block is one line, or a block whose body ends at the first line that is a lone closing brace.
    const main = /^if \(isMainScript\(import\.meta\.url\)\) (?:\{$([\s\S]*?)^\}$|(.+)$)/m.exec(source);
    expect(main, `bench/${file}.mjs has no main block`).not.toBeNull();
    expect(main?.[1] ?? main?.[2]).toMatch(new RegExp(`await runBenchmark\\(${name}\\)`));
  });

  // bench/README.md runs them as `node bench/<name>.mjs`: a relative path, which an earlier spelling of the guard
  // (new URL(`file://${argv[1]}`)) never matched, so that benchmark measured nothing and exited 0.
  it.each(['bench/policy-metrics.mjs', resolve('bench/policy-metrics.mjs')])('knows its script when node is started with %s', (started) => {
    const argv = process.argv[1] as string;
    try {
      process.argv[1] = started;
      expect(isMainScript(pathToFileURL(resolve('bench/policy-metrics.mjs')).href)).toBe(true);
      expect(isMainScript(pathToFileURL(resolve('bench/workers.mjs')).href)).toBe(false);
    } finally {
      process.argv[1] = argv;
    }
  });
});
