// `workers`: does throughput scale with cores? Three gateways on one throw-away redis-server (one key ring, so one
// token works on all): `workers: 1` and `workers: 2` unpinned, driven by unpinned wrk, and `workers: 1` pinned to
// core 0 with wrk and its upstream on core 1, which gives the single-core figure and the CPU cost per request on
// which the "on paper" projection is built. Loopback only; bounded in time.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import {
  backgroundLoad,
  BENCH_ACCOUNT,
  machine,
  machineLine,
  machineCpuTicks,
  startNodeUpstream,
  startPinnedGateway,
  startRedis,
  writeBenchAccounts,
  writeResult,
  knob,
  isMainScript,
  runBenchmark,
} from './lib.mjs';
import { CLOCK_TICKS_PER_SECOND, groupCpuTicks, runWrk } from './load.mjs';

const DURATION_S = knob('BENCH_WORKERS_DURATION', 4);
const PASSES = knob('BENCH_WORKERS_PASSES', 2);
const WARMUP_S = 1;
const CONNECTIONS = 50;
const CORES = os.availableParallelism();
const ALL_CORES = `0-${CORES - 1}`;
const [SERVER_CORE, CLIENT_CORE] = CORES >= 2 ? ['0', '1'] : ['0', '0'];
const PATH = '/business/score/v2/08041998';

const progress = (line) => process.stderr.write(`[workers] ${line}\n`);
const median = (values) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export async function workers() {
  const startedAt = Date.now();
  const background = await backgroundLoad();
  const dir = await mkdtemp(join(os.tmpdir(), 'tg-bench-workers-'));
  const redis = await startRedis();
  const servers = [];
  try {
    // The unpinned gateways get an unpinned upstream; the pinned one an upstream on core 1, beside wrk.
    const upstreamFree = await startNodeUpstream({ cores: ALL_CORES });
    servers.push(upstreamFree.server);
    const upstreamPinned = await startNodeUpstream({ cores: CLIENT_CORE });
    servers.push(upstreamPinned.server);
    const accounts = await writeBenchAccounts(join(dir, 'accounts.yaml'));
    const kek = join(dir, 'kek');
    await writeFile(kek, randomBytes(32).toString('base64'), { mode: 0o600 });
    const config = (workerCount, upstream) => [
      `workers: ${workerCount}`,
      'issuer: https://bench.example.com',
      'environment: bench',
      `store: { redis: { url: "${redis.url}" } }`,
      `keys: { encryption_key_file: ${kek} }`,
      `accounts: ${accounts}`,
      'log: { level: warn }',
      'routes:',
      `  - { path: /business/, upstream: "${upstream.url}" }`,
    ];
    const variants = [
      { id: 'one', label: '`workers: 1`, unpinned', workers: 1, cores: ALL_CORES, wrkCores: ALL_CORES, upstream: upstreamFree },
      { id: 'two', label: '`workers: 2`, unpinned', workers: 2, cores: ALL_CORES, wrkCores: ALL_CORES, upstream: upstreamFree },
      { id: 'pinned', label: `\`workers: 1\` on core ${SERVER_CORE}, wrk and upstream on core ${CLIENT_CORE}`, workers: 1, cores: SERVER_CORE, wrkCores: CLIENT_CORE, upstream: upstreamPinned },
    ];
    // One after the other: the first creates the key ring in Redis, the others load it.
    for (const variant of variants) {
      const gateway = await startPinnedGateway({ dir, name: variant.id, cores: variant.cores, config: config(variant.workers, variant.upstream) });
      servers.push(gateway.server);
      Object.assign(variant, { url: gateway.url, pgid: gateway.server.pid, runs: [] });
    }
    const grant = await fetch(`${variants[0].url}/oauth2/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', ...BENCH_ACCOUNT }),
    });
    if (grant.status !== 200) throw new Error(`password grant answered ${grant.status}`);
    const { access_token: token } = await grant.json();
    const drive = async (variant, durationS) => {
      const before = { gateway: groupCpuTicks(variant.pgid), machine: machineCpuTicks() };
      const result = await runWrk({ url: `${variant.url}${PATH}`, headers: { authorization: `Bearer ${token}` }, connections: CONNECTIONS, durationS, cores: variant.wrkCores });
      const gatewayTicks = groupCpuTicks(variant.pgid) - before.gateway;
      const after = machineCpuTicks();
      const busyTicks = after.busy - before.machine.busy;
      const us = (ticks) => (ticks * 1e6) / CLOCK_TICKS_PER_SECOND / result.requests;
      return {
        ...result,
        gatewayUsPerRequest: us(gatewayTicks),
        otherUsPerRequest: us(busyTicks - gatewayTicks),
        machineBusy: busyTicks / Math.max(1, after.total - before.machine.total),
      };
    };
    for (const variant of variants) {
      const status = await fetch(`${variant.url}${PATH}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => (r.arrayBuffer(), r.status));
      if (status !== 200) throw new Error(`${variant.id} answered ${status} to the token`);
      progress(`warm-up ${variant.id}`);
      await drive(variant, WARMUP_S);
    }
    for (let pass = 0; pass < PASSES; pass++) {
      // Alternate the order so that neither configuration always follows the other.
      const order = pass % 2 === 0 ? variants : [variants[1], variants[0], variants[2]];
      for (const variant of order) {
        progress(`pass ${pass + 1}: ${variant.id}`);
        variant.runs.push(await drive(variant, DURATION_S));
      }
    }

    // ----- report
    const [one, two, pinned] = variants;
    const stat = (variant, key) => median(variant.runs.map((run) => run[key]));
    const ratios = two.runs.map((run, i) => run.rps / one.runs[i].rps);
    const ratio = median(ratios);
    const single = stat(pinned, 'rps');
    const gatewayUs = stat(pinned, 'gatewayUsPerRequest');
    const otherUs = stat(pinned, 'otherUsPerRequest');
    const dedicated = CORES * single;
    const shared = (CORES * 1e6) / (gatewayUs + otherUs);
    const clean = variants.every((variant) => variant.runs.every((run) => run.non2xx === 0 && run.socketErrors === 0));
    const facts = machine();
    const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a');
    const row = (variant) =>
      `| ${variant.label} | ${fmt(stat(variant, 'rps'))} | ${variant.runs.map((run) => fmt(run.rps)).join(', ')} | ${fmt(stat(variant, 'p50Ms'), 2)} | ${fmt(stat(variant, 'p99Ms'), 2)} | ${fmt(stat(variant, 'gatewayUsPerRequest'), 1)} | ${fmt(stat(variant, 'otherUsPerRequest'), 1)} | ${fmt(stat(variant, 'machineBusy') * 100)}% | ${variant.runs.reduce((n, run) => n + run.non2xx, 0)} / ${variant.runs.reduce((n, run) => n + run.socketErrors, 0)} |`;
    const twoRps = stat(two, 'rps');
    const ofBound = twoRps / shared;
    const verdict =
      ofBound >= 0.85 && ofBound <= 1.15
        ? `the measured \`workers: 2\` figure (${fmt(twoRps)} req/s, ${fmt(ofBound, 2)} of that bound) is what the shared CPU allows: it says nothing against scaling where clients and upstreams run elsewhere.`
        : ofBound > 1.15
          ? `the measured \`workers: 2\` figure (${fmt(twoRps)} req/s) is ${fmt(ofBound, 2)}x that bound: the pinned run's per-request costs do not carry over exactly (an unpinned wrk and upstream batch more per wake-up), so read the bound as rough.`
          : `the measured \`workers: 2\` figure (${fmt(twoRps)} req/s) is only ${fmt(ofBound, 2)} of that bound: something besides CPU (the cluster primary handing out connections, scheduling of four busy processes on ${CORES} cores, or other load on the machine) held it back.`;
    const markdown = [
      '# workers: throughput against cores',
      '',
      machineLine(facts, [`Redis ${facts.redis}`]),
      `Machine busy before the start (other processes): ${Math.round(background * 100)}% of all cores${background > 0.1 ? ' (**not idle: the figures below shared the machine**)' : ''}.`,
      '',
      `Three \`token-gateway serve\` on one throw-away redis-server (one environment, one key ring: the same token works on`,
      `all three), \`log.level: warn\`, no policies, each in front of a Node \`http\` upstream (300-byte body). Protected calls`,
      `\`GET ${PATH}\` with one token, \`wrk -t1 -c${CONNECTIONS}\`, ${DURATION_S} s per run after a ${WARMUP_S} s warm-up of each; ${PASSES} passes, the order of`,
      'the two unpinned configurations alternating. `workers: auto` would start one worker per core: here that is',
      `${CORES}. Figures are medians over the passes.`,
      '',
      '| configuration | req/s | per pass | p50 ms | p99 ms | gateway CPU µs/req | everything else µs/req | machine busy | non-2xx / socket errors |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      row(one),
      row(two),
      row(pinned),
      '',
      '"gateway CPU" is user + system time of the gateway\'s process group (the cluster primary and its workers, all',
      'threads) per request; "everything else" is the rest of the machine\'s busy time over the run (wrk, the upstream, and',
      'anything else running) per request, from /proc/stat.',
      '',
      '## Measured',
      '',
      `\`workers: 2\` / \`workers: 1\`: **${fmt(ratio, 2)}** (per pass: ${ratios.map((r) => fmt(r, 2)).join(', ')})${clean ? '' : ' (**errors in some runs**)'}.`,
      '',
      `Read with care: the unpinned single worker shares its core with wrk and the upstream whenever the scheduler puts`,
      `them together, so it does ${fmt(stat(one, 'rps') / single, 2)}x what one worker does on a core of its own (the pinned row). Against that`,
      `figure, \`workers: 2\` does ${fmt(twoRps / single, 2)}x: on this box the second core mostly goes to the load generator (next section).`,
      '',
      '## On paper',
      '',
      `- One worker on one core of its own: **${fmt(single)} req/s** (the pinned row), using ${fmt(gatewayUs, 1)} µs of gateway CPU per request.`,
      `- Workers do not share anything on the request path (the revocation list and the verified tokens are per`,
      `  process, Redis is not consulted per protected call, connections are handed out by the cluster primary; a`,
      '  spike-arrest policy would add a Redis call per request, not configured here), so',
      `  \`workers: auto\` on N cores with the load generator and upstream elsewhere is about N x ${fmt(single)} req/s:`,
      `  **${fmt(dedicated)} req/s on ${CORES} cores**, ${fmt(4 * single)} on 4, ${fmt(8 * single)} on 8 (minus what the cluster primary and the kernel`,
      '  take, which the pinned row does not show).',
      `- On this ${CORES}-core box the load generator is not elsewhere: wrk and the upstream needed ${fmt(otherUs, 1)} µs of CPU per request`,
      `  in the pinned run, on top of the gateway's ${fmt(gatewayUs, 1)}. With every core shared, the best \`workers: ${CORES}\` can do here is`,
      `  ${CORES} cores / (${fmt(gatewayUs, 1)} + ${fmt(otherUs, 1)}) µs = **${fmt(shared)} req/s**, i.e. ${fmt(shared / single, 2)}x the single-core figure, not ${CORES}x:`,
      `  ${verdict}`,
      '',
      `Knobs: \`BENCH_WORKERS_DURATION\` (${DURATION_S} s), \`BENCH_WORKERS_PASSES\` (${PASSES}). This run took ${fmt((Date.now() - startedAt) / 1000)} s.`,
      '',
    ].join('\n');
    const file = await writeResult('workers', markdown);
    return { markdown, file };
  } finally {
    for (const server of servers.reverse()) await server.stop();
    redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMainScript(import.meta.url)) await runBenchmark(workers);
