// No leak under aborting clients: a gateway (memory store) pinned to core 0 forwards 200,000 protected requests to an
// upstream answering 16 KiB in several writes; one request in ten is cut off by its client after the first response
// bytes, while the upstream holds the rest of that body back, so the cut always lands mid-response. File descriptors
// and RSS are compared after a warm-up and after the run, both times with the client's sockets closed and the gateway
// idle for a moment. Loopback only; bounded in count and time.
//   node bench/leak.mjs                     the benchmark
//   node bench/leak.mjs abort-load '<json>' the driver child, JSON result on stdout
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  backgroundLoad,
  BENCH_ACCOUNT,
  machine,
  machineLine,
  openFds,
  rssKiB,
  runPinnedNode,
  startNodeUpstream,
  startPinnedGateway,
  withGroupCpu,
  writeBenchAccounts,
  writeResult,
  knob,
  isMainScript,
  runBenchmark,
} from './lib.mjs';

const SCRIPT = fileURLToPath(import.meta.url);
const REQUESTS = knob('BENCH_LEAK_REQUESTS', 200_000);
const WARMUP = Math.ceil(REQUESTS / 10);
const CONCURRENCY = knob('BENCH_LEAK_CONCURRENCY', 50);
const ABORT_EVERY = 10;
const BODY_BYTES = knob('BENCH_LEAK_BODY_KIB', 16) * 1024;
const BODY_WRITES = 4;
/** The upstream holds the rest of an aborted request's body back this long, so the cut always lands mid-response. */
const SLOW_MS = 20;
const IDLE_MS = 2_000;
const [SERVER_CORE, CLIENT_CORE] = os.availableParallelism() >= 2 ? ['0', '1'] : ['0', '0'];
const PATH = '/business/score/v2/08041998';
const GOAL_GROWTH = 0.1;

const progress = (line) => process.stderr.write(`[leak] ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The driver: `requests` GETs over a keep-alive Agent with `concurrency` sockets; every `abortEvery`-th request asks
 * the upstream to pause after its first write (`x-bench-slow`) and destroys its socket when the first response bytes
 * arrive. Exits when done, which closes every socket it still has.
 */
async function abortLoad({ url, token, requests, concurrency, abortEvery, slowMs }) {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const statuses = {};
  let aborted = 0;
  let errors = 0;
  let firstError;
  let bodyShort = 0;
  let next = 0;
  const one = (index) =>
    new Promise((resolve) => {
      const abort = (index + 1) % abortEvery === 0;
      let settled = false;
      const settle = () => {
        if (!settled) {
          settled = true;
          resolve();
        }
      };
      const headers = { authorization: `Bearer ${token}` };
      if (abort) headers['x-bench-slow'] = String(slowMs);
      const req = http.request({ hostname, port, path: PATH, agent, headers }, (res) => {
        if (abort && res.statusCode === 200) {
          res.once('data', () => {
            aborted++;
            settled = true; // any error from here on is the one we caused
            req.destroy();
            resolve();
          });
          return;
        }
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        let bytes = 0;
        res.on('data', (chunk) => (bytes += chunk.length));
        res.on('end', () => {
          if (res.statusCode === 200 && bytes !== Number(res.headers['content-length'])) bodyShort++;
          settle();
        });
        res.on('error', () => {
          if (!settled) errors++;
          settle();
        });
      });
      req.on('error', (error) => {
        if (!settled) {
          errors++;
          firstError ??= error.message;
        }
        settle();
      });
      req.end();
    });
  const startedAt = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) await one(next++);
    }),
  );
  const seconds = (performance.now() - startedAt) / 1000;
  agent.destroy();
  return { requests, seconds, rps: requests / seconds, statuses, aborted, errors, firstError, bodyShort };
}

const runDriver = (params, timeoutMs) => runPinnedNode(CLIENT_CORE, SCRIPT, ['abort-load', JSON.stringify(params)], { timeoutMs });

export async function leak() {
  const startedAt = Date.now();
  const background = await backgroundLoad();
  const dir = await mkdtemp(join(os.tmpdir(), 'tg-bench-leak-'));
  const servers = [];
  try {
    const upstream = await startNodeUpstream({ cores: CLIENT_CORE, size: BODY_BYTES, writes: BODY_WRITES });
    servers.push(upstream.server);
    const accounts = await writeBenchAccounts(join(dir, 'accounts.yaml'));
    const gateway = await startPinnedGateway({
      dir,
      name: 'gateway',
      cores: SERVER_CORE,
      config: ['issuer: https://bench.example.com', `accounts: ${accounts}`, 'log: { level: warn }', 'routes:', `  - { path: /business/, upstream: "${upstream.url}" }`],
    });
    servers.push(gateway.server);
    const pid = gateway.server.pid;
    const grant = await fetch(`${gateway.url}/oauth2/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', ...BENCH_ACCOUNT }),
    });
    if (grant.status !== 200) throw new Error(`password grant answered ${grant.status}`);
    const { access_token: token } = await grant.json();
    const params = { url: gateway.url, token, concurrency: CONCURRENCY, abortEvery: ABORT_EVERY, slowMs: SLOW_MS };
    const snapshot = () => ({ fds: openFds(pid), rssKiB: rssKiB(pid) });
    const fresh = snapshot();

    progress(`warm-up: ${WARMUP.toLocaleString('en-US')} requests`);
    const warmUp = await runDriver({ ...params, requests: WARMUP }, 300_000);
    await sleep(IDLE_MS);
    const baseline = snapshot();

    progress(`run: ${REQUESTS.toLocaleString('en-US')} requests, every ${ABORT_EVERY}th cut off`);
    let peak = { ...baseline };
    const sampler = setInterval(() => {
      try {
        const now = snapshot();
        peak = { fds: Math.max(peak.fds, now.fds), rssKiB: Math.max(peak.rssKiB, now.rssKiB) };
      } catch {
        // the gateway is gone: the run itself reports it
      }
    }, 500);
    let run;
    let runCpu;
    try {
      ({ result: run, cpu: runCpu } = await withGroupCpu(pid, () => runDriver({ ...params, requests: REQUESTS }, 900_000)));
    } finally {
      clearInterval(sampler);
    }
    await sleep(IDLE_MS);
    const final = snapshot();
    const check = await fetch(`${gateway.url}${PATH}`, { headers: { authorization: `Bearer ${token}` } });
    await check.arrayBuffer();

    // ----- report
    const facts = machine();
    const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a');
    const mb = (kib) => fmt(kib / 1024, 1);
    const growth = (a, b) => (b - a) / a;
    const fdGrowth = growth(baseline.fds, final.fds);
    const rssGrowth = growth(baseline.rssKiB, final.rssKiB);
    const unexpected = (r) => Object.entries(r.statuses).filter(([status]) => status !== '200');
    const answered = (r) => Object.values(r.statuses).reduce((sum, n) => sum + n, 0);
    const clean = unexpected(run).length === 0 && run.errors === 0 && run.bodyShort === 0 && run.aborted === Math.floor(REQUESTS / ABORT_EVERY);
    const met = (ok) => (ok ? 'met' : '**not met**');
    const statusText = (r) => (unexpected(r).length ? unexpected(r).map(([s, n]) => `${s}: ${fmt(n)}`).join(', ') : 'none');
    const markdown = [
      '# Leak check: aborting clients',
      '',
      machineLine(facts),
      `Machine busy before the start (other processes): ${Math.round(background * 100)}% of all cores${background > 0.1 ? ' (**not idle: the figures below shared the machine**)' : ''}.`,
      '',
      `One \`token-gateway serve\` (memory store, no policies, \`log.level: warn\`) pinned to core ${SERVER_CORE}, in front of a Node \`http\``,
      `upstream that answers ${fmt(BODY_BYTES / 1024)} KiB in ${BODY_WRITES} writes. A Node driver pinned to core ${CLIENT_CORE} sends \`GET ${PATH}\` with one`,
      `Bearer token over a keep-alive \`http.Agent\` of ${CONCURRENCY} sockets, ${CONCURRENCY} requests in flight. Every ${ABORT_EVERY}th request asks the upstream`,
      `(\`x-bench-slow\`) to hold the rest of its body back for ${SLOW_MS} ms after the first write, and destroys its socket as soon as the`,
      'first response bytes arrive: the gateway is always mid-response, with the upstream still sending, when its client',
      'goes away. The size only has to span several writes for that; 16 KiB keeps 220,000 requests within the time budget',
      '(`BENCH_LEAK_BODY_KIB` for larger bodies). The driver is a child process: when it exits, every socket it had is closed.',
      '',
      `Baseline: after a warm-up of ${fmt(WARMUP)} requests (the same mix), the driver gone and ${IDLE_MS / 1000} s idle. Final: after the run, the`,
      `driver gone and ${IDLE_MS / 1000} s idle. File descriptors are the entries of /proc/<pid>/fd, RSS is \`VmRSS\`; peaks sampled every 0.5 s`,
      'during the run.',
      '',
      '## Goals',
      '',
      '| goal | baseline | final | change | target | result |',
      '|---|---:|---:|---:|---:|---|',
      `| file descriptors | ${fmt(baseline.fds)} | ${fmt(final.fds)} | ${fmt(fdGrowth * 100, 1)}% | within ${GOAL_GROWTH * 100}% | ${met(fdGrowth <= GOAL_GROWTH)} |`,
      `| RSS | ${mb(baseline.rssKiB)} MB | ${mb(final.rssKiB)} MB | ${fmt(rssGrowth * 100, 1)}% | within ${GOAL_GROWTH * 100}% | ${met(rssGrowth <= GOAL_GROWTH)} |`,
      `| answers other than 200 (aborted ones aside), errors, short bodies | | ${statusText(run)}; ${fmt(run.errors)} errors; ${fmt(run.bodyShort)} short | | none | ${met(clean)} |`,
      '',
      '## Runs',
      '',
      '| phase | requests | cut off | answered | req/s | not 200 | errors | short bodies | fds after | RSS after |',
      '|---|---:|---:|---:|---:|---|---:|---:|---:|---:|',
      `| fresh gateway (one password grant) | | | | | | | | ${fmt(fresh.fds)} | ${mb(fresh.rssKiB)} MB |`,
      `| warm-up | ${fmt(warmUp.requests)} | ${fmt(warmUp.aborted)} | ${fmt(answered(warmUp))} | ${fmt(warmUp.rps)} | ${statusText(warmUp)} | ${fmt(warmUp.errors)} | ${fmt(warmUp.bodyShort)} | ${fmt(baseline.fds)} | ${mb(baseline.rssKiB)} MB |`,
      `| run | ${fmt(run.requests)} | ${fmt(run.aborted)} | ${fmt(answered(run))} | ${fmt(run.rps)} | ${statusText(run)} | ${fmt(run.errors)} | ${fmt(run.bodyShort)} | ${fmt(final.fds)} | ${mb(final.rssKiB)} MB |`,
      `| peak during the run | | | | | | | | ${fmt(peak.fds)} | ${mb(peak.rssKiB)} MB |`,
      '',
      `During the run the gateway used ${fmt(runCpu.share * 100)}% of core ${SERVER_CORE} (${fmt(runCpu.us / REQUESTS, 1)} µs of CPU per request, user + system, all threads).`,
      `After the run the gateway still answered a protected call with ${check.status}.${run.firstError ? ` First driver error: \`${run.firstError}\`.` : ''}`,
      '',
      `Knobs: \`BENCH_LEAK_REQUESTS\` (${fmt(REQUESTS)}; the warm-up is a tenth of it), \`BENCH_LEAK_CONCURRENCY\` (${CONCURRENCY}), \`BENCH_LEAK_BODY_KIB\` (${BODY_BYTES / 1024}).`,
      `This run took ${fmt((Date.now() - startedAt) / 1000)} s.`,
      '',
    ].join('\n');
    const file = await writeResult('leak', markdown);
    return { markdown, file };
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMainScript(import.meta.url)) {
  const [driver, params] = process.argv.slice(2);
  if (driver === 'abort-load') {
    process.stdout.write(`${JSON.stringify(await abortLoad(JSON.parse(params)))}\n`);
    process.exit(0);
  } else if (driver) {
    throw new Error(`unknown driver ${driver}; the only one is abort-load`);
  } else {
    await runBenchmark(leak);
  }
}
