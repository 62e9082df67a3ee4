// What the per-policy figures cost a protected call: the policy chain of protected-call.mjs's full pipeline (ip-range,
// regex-protection with the five built-in sets, spike arrest per client_id that never refuses) run in-process on the
// same request, two ways, interleaved pass by pass:
//   before     the chain loop as it was before per-policy figures (copied below: no clock, no counts)
//   counted    today's enforce() with the metrics' own series, and the per-request closure phases.ts makes: the gateway
// Only what the gateway runs goes through enforce(): figures of another class there (a no-op set, say) would make its
// call sites polymorphic and slow both down, which the gateway never sees.
// Bounded: BENCH_POLICY_PASSES x 2 x BENCH_POLICY_REQUESTS evaluations of the chain, no network.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { systemClock } from '../dist/clock.js';
import { GatewayError } from '../dist/errors/gateway-error.js';
import { syntheticRequest } from '../dist/policies/dry-run.js';
import { enforce } from '../dist/policies/enforce.js';
import { readPolicyFolder } from '../dist/policies/policy-file.js';
import { PolicySet } from '../dist/policies/policy-set.js';
import { MemoryWindowCounter } from '../dist/store/memory.js';
import { PolicyFamilies } from '../dist/telemetry/policy-series.js';
import { knob, machine, machineLine, writeResult, isMainScript, runBenchmark } from './lib.mjs';
import { POLICIES } from './protected-call.mjs';

const PASSES = knob('BENCH_POLICY_PASSES', 7);
const REQUESTS = knob('BENCH_POLICY_REQUESTS', 100_000);
const progress = (line) => process.stderr.write(`[policy-metrics] ${line}\n`);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The loop of src/policies/enforce.ts before per-policy figures (commit 81a7028), for the baseline. */
async function enforceBefore(chain, request) {
  for (const policy of chain) {
    let verdict;
    try {
      verdict = await policy.check(request);
    } catch (error) {
      if (error instanceof GatewayError) throw new GatewayError(error.code, { detail: `policy ${policy.name}: ${error.detail ?? ''}`, cause: error });
      throw error;
    }
    if (verdict) throw new GatewayError(verdict.code, { detail: `policy ${policy.name}: ${verdict.detail}`, policy: policy.name, policyKind: policy.kind });
  }
}

async function chainWith(folder, figures) {
  const names = ['bench-ip-range', 'bench-injection-guard', 'bench-spike-arrest'];
  const attachments = {
    defaults: { file: 'bench', path: ['policies', 'defaults'], names },
    endpoints: new Map(),
    routes: new Map([['/business/', { file: 'bench', path: ['routes', 0, 'policies'], names: [] }]]),
    apps: new Map(),
  };
  const deps = { clock: systemClock, windowCounter: ({ points }) => new MemoryWindowCounter(points) };
  const set = await PolicySet.build(await readPolicyFolder(folder), attachments, deps, figures);
  return set.forRoute('/business/');
}

/**
 * The request of protected-call.mjs, as the policies see it: no body, a Bearer token, a client id, answered at once
 * as the gateway answers it for a token verified before (the dry run's request answers through a promise).
 */
const request = {
  ...syntheticRequest(
    {
      method: 'GET',
      target: '/business/score/v2/08041998',
      headers: [
        ['Host', '127.0.0.1:8080'],
        ['Authorization', `Bearer ${'e'.repeat(300)}`],
      ],
      body: Buffer.alloc(0),
      clientAddress: '127.0.0.1',
      clientId: 'bench-app',
      user: 'bench',
    },
    { path: '/business/score/v2/08041998', bodyLimit: 1024 * 1024 },
  ),
  clientId: () => 'bench-app',
  user: () => 'bench',
};

/**
 * CPU time per chain run in ns (user + system of this process, GC threads included): on a machine shared with other
 * work, wall time would count the time the process waited for a core.
 */
async function drive(run) {
  const started = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) await run();
  const { user, system } = process.cpuUsage(started);
  return ((user + system) * 1000) / REQUESTS;
}

export async function policyMetrics() {
  const dir = await mkdtemp(join(os.tmpdir(), 'tg-bench-policy-metrics-'));
  try {
    await mkdir(join(dir, 'policies'));
    await writeFile(join(dir, 'policies', 'bench.yaml'), POLICIES);
    const families = new PolicyFamilies(new Registry());
    const counted = await chainWith(join(dir, 'policies'), (name, kind) => families.seriesOf(name, kind));
    const before = await chainWith(join(dir, 'policies'), undefined);
    const reported = [];
    const ways = [
      { id: 'before', label: 'before per-policy figures (the loop as it was)', run: () => enforceBefore(before, request) },
      {
        id: 'counted',
        label: 'enforce() with the metrics series and the per-request closure: what the gateway runs',
        run: () => {
          const wouldRefuse = (policy, rejection) => reported.push([policy, rejection]);
          return enforce(counted, request, wouldRefuse);
        },
      },
    ];
    progress(`warm-up, then ${PASSES} passes x ${ways.length} ways x ${REQUESTS} chain runs`);
    for (const way of ways) await drive(way.run);
    const samples = new Map(ways.map((way) => [way.id, []]));
    for (let pass = 0; pass < PASSES; pass++) {
      for (let i = 0; i < ways.length; i++) {
        const way = ways[(i + pass) % ways.length];
        samples.get(way.id).push(await drive(way.run));
      }
    }
    if (reported.length > 0) throw new Error('a policy of the bench chain refused: the figures would not be comparable');
    const evaluations = families.totalsOf('bench-injection-guard', 'regex-protection').evaluations;
    if (evaluations !== (PASSES + 1) * REQUESTS) throw new Error(`counted ${evaluations} evaluations, expected ${(PASSES + 1) * REQUESTS}`);
    const base = median(samples.get('before'));
    // Added cost, pass by pass against the same pass's baseline.
    const added = (id) => median(samples.get(id).map((ns, pass) => ns - samples.get('before')[pass]));
    const rows = ways.map((way) => {
      const values = samples.get(way.id);
      const extra = way.id === 'before' ? '' : `${added(way.id) >= 0 ? '+' : ''}${(added(way.id) / 1000).toFixed(2)}`;
      return `| ${way.label} | ${(median(values) / 1000).toFixed(2)} | ${(Math.min(...values) / 1000).toFixed(2)}-${(Math.max(...values) / 1000).toFixed(2)} | ${extra} |`;
    });
    const facts = machine();
    const markdown = [
      '# Per-policy figures: what they cost a protected call',
      '',
      machineLine(facts, [], { gatewayProcesses: false }),
      '',
      `The three policies of protected-call.mjs's full pipeline (ip-range, regex-protection with the five built-in sets on`,
      `path, query, two headers and JSON bodies, spike arrest per client_id at 100000ps, never refusing) run in-process`,
      `on its request (\`GET /business/score/v2/08041998\`, no body), ${REQUESTS.toLocaleString('en')} times per run; ${PASSES} interleaved passes after a`,
      'warm-up of each; figures are CPU time (user + system of the process, GC included) per chain run, medians over the',
      'passes; "added" is taken pass by pass against the same pass\'s `before`. The spike arrest counts in the memory',
      "store's window counter, synchronously, as the gateway does on the memory store for a token verified before;",
      'this loop runs about a thousand checks a millisecond, so most find their 1 ms window (100 requests) taken and',
      'count in the burst allowance as well, which the gateway at 15 requests a millisecond never does.',
      '',
      '| way | CPU µs per request | range over passes | added µs per request |',
      '|---|---:|---:|---:|',
      ...rows,
      '',
      `Per-policy figures add ${(added('counted') / 1000).toFixed(2)} µs to a chain of three policies that takes ${(base / 1000).toFixed(2)} µs; a protected call costs`,
      "about 50 to 90 µs of CPU in all, by machine (protected-call.mjs's result of the same build).",
      '',
    ].join('\n');
    const file = await writeResult('policy-metrics', markdown);
    return { markdown, file };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMainScript(import.meta.url)) await runBenchmark(policyMetrics);
