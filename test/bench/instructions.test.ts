import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a benchmark script, JavaScript without declarations
import { ROWS, wantedRows } from '../../bench/instructions.mjs';

/*
 * bench/instructions.mjs drives two servers under valgrind's callgrind through
 * callgrind_control: a change to how the gateway starts, or to the benchmark's
 * counting, should fail `npm test` rather than `npm run bench`. A short run
 * (a few hundred calls, counts only: no wrk, no nginx) from a temp dir, so the
 * result file lands there; four of its rows, so that undici-jose's borrowed
 * key, the token sent to the floor, and two counted stages are run too. The counts are read, never judged:
 * an instruction count is a measurement, and tests do not assert speed.
 */

const SCRIPT = resolve('bench/instructions.mjs');
const folder = mkdtempSync(join(tmpdir(), 'token-gateway-bench-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('bench/instructions.mjs', () => {
  it('counts the instructions of a protected call for the gateway and the bare forwarder and writes its table', () => {
    // Run as `npm run bench` runs it, as a script of its own (its main block writes the result and exits).
    const run = spawnSync(process.execPath, [SCRIPT], {
      cwd: folder,
      encoding: 'utf8',
      env: { ...process.env, BENCH_INSTR_NATIVE: '0', BENCH_INSTR_WARMUP: '200', BENCH_INSTR_CALLS: '100', BENCH_INSTR_COUNTS: '1', BENCH_INSTR_ROWS: 'undici, gateway,undici-token,undici-jose' },
      timeout: 240_000,
    });
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.status).toBe(0);
    const [result] = readdirSync(join(folder, 'bench', 'results'));
    const markdown = readFileSync(join(folder, 'bench', 'results', result as string), 'utf8');
    // Each row carries a count read from a callgrind dump: a number of thousands of instructions per call.
    expect(markdown).toMatch(/^\| gateway as shipped \(full pipeline, log info to a file\) \| \d+\.\dk \|/m);
    // Each count's full collection and compiler, and the median less them, beside the count.
    expect(markdown).toMatch(/^\| gateway as shipped \(full pipeline, log info to a file\) \| \d+\.\dk \| - \| \d+\.\dk \+ \d+\.\dk \| \d+\.\dk \| - \| - \|$/m);
    expect(markdown).toMatch(/^\| bare undici forwarder \(no auth, no log\) \| \d+\.\dk \|/m);
    expect(markdown).toMatch(/^\| Node http \+ undici Pool \+ jose ES256, verified-token LRU, no log \| \d+\.\dk \|/m);
    expect(markdown).toMatch(/\*\*Instructions, gateway ÷ floor: \d+\.\d{3}\*\*/);
    // Rows run, and are reported, in ROWS's order whatever order they were named in.
    expect(markdown.indexOf('| gateway as shipped')).toBeLessThan(markdown.indexOf('| Node http + undici Pool + jose'));
    expect(markdown.indexOf('| Node http + undici Pool + jose')).toBeLessThan(markdown.indexOf('| bare undici forwarder, sent the same Authorization header'));
    expect(markdown.indexOf('| bare undici forwarder, sent')).toBeLessThan(markdown.indexOf('| bare undici forwarder (no auth'));
    expect(markdown).toMatch(/^\| bare undici forwarder, sent the same Authorization header \(not checked, forwarded\) \| \d+\.\dk \|/m);
    // Only the stages both of whose rows ran.
    expect(markdown).toMatch(/^\| jose's check and the verified-token LRU \| `undici-jose` − `undici-token` \| -?\d+\.\dk \| -?\d+\.\dk \| - \|$/m);
    expect(markdown).toMatch(/^\| the credential's bytes: [^|]+ \| `undici-token` − `undici` \| -?\d+\.\dk \| -?\d+\.\dk \| - \|$/m);
    expect(markdown).not.toMatch(/the access line \(`info` against `warn`/);
  }, 250_000);

  it('runs the rows BENCH_INSTR_ROWS names, in their order of the budget, or all of them', () => {
    expect(wantedRows('undici,gateway').map((row: { id: string }) => row.id)).toEqual(['gateway', 'undici']);
    expect(wantedRows('all')).toEqual(ROWS);
    expect(wantedRows(' gateway-quiet , ').map((row: { id: string }) => row.id)).toEqual(['gateway-quiet']);
  });

  it('refuses a row it does not know, naming the ones it does', () => {
    expect(() => wantedRows('gateway,haproxy')).toThrow('BENCH_INSTR_ROWS must name rows among gateway, gateway-quiet, gateway-bearer-only, undici-jose, undici-token, undici (or be all), got "gateway,haproxy"');
    expect(() => wantedRows(' , ')).toThrow('BENCH_INSTR_ROWS must name rows among');
  });
});
