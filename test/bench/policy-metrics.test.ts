import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * The one benchmark that runs in-process, against the compiled policies'
 * interfaces, with nothing to install: kept running by a short run here, so
 * that a change to what compiling a policy takes fails `npm test` rather than
 * `npm run bench` (it did once: the spike arrest's counters changed shape).
 * Speed is not asserted. Run from a temp dir, so the result file lands there.
 */

const SCRIPT = resolve('bench/policy-metrics.mjs');
const folder = mkdtempSync(join(tmpdir(), 'token-gateway-bench-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('bench/policy-metrics.mjs', () => {
  it('runs the three policies of the protected-call pipeline and writes its table', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', `const { policyMetrics } = await import(${JSON.stringify(SCRIPT)}); await policyMetrics();`], {
      cwd: folder,
      encoding: 'utf8',
      env: { ...process.env, BENCH_POLICY_PASSES: '1', BENCH_POLICY_REQUESTS: '2000' },
      timeout: 60_000,
    });
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.status).toBe(0);
    const [result] = readdirSync(join(folder, 'bench', 'results'));
    const markdown = readFileSync(join(folder, 'bench', 'results', result as string), 'utf8');
    expect(markdown).toContain('| enforce() with the metrics series and the per-request closure: what the gateway runs |');
  });
});
