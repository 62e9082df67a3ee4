// The token endpoint under load: (a) the password hash's own rate, (b) password grants against it, (c) refresh
// grants, (d) protected calls while the token endpoint is saturated with password grants.
// The gateway (memory store, no policies) and the hashing child are pinned to core 0; wrk, the Node drivers and the
// upstream to core 1. Loopback only; every phase is bounded in time.
//   node bench/token-endpoint.mjs                    the benchmark
//   node bench/token-endpoint.mjs <driver> '<json>'  a driver child (hash-rate, refresh-chains), JSON result on stdout
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  backgroundLoad,
  BENCH_ACCOUNT,
  machine,
  machineLine,
  machineCpuTicks,
  percentile,
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
import { CLOCK_TICKS_PER_SECOND, parseWrk, runWrk, threadCpuTicks } from './load.mjs';

const SCRIPT = fileURLToPath(import.meta.url);
const HASH_S = knob('BENCH_HASH_DURATION', 2.5);
const GRANT_S = knob('BENCH_GRANT_DURATION', 3);
// Password grants before the passes, so that they measure a gateway that has served grants before, as one in
// production has: a grant's code is fully optimised only after a few thousand grants. With 1 s (about 180 grants)
// or 5 s the work outside the hash was 0.7 to 0.8 ms per grant, with 30 s 0.45 ms (bench/README.md, token-endpoint).
// The rate of the warm-up's first seconds (FRESH_S) is printed beside the goal, as what a fresh process does.
const GRANT_WARMUP_S = knob('BENCH_GRANT_WARMUP', 30);
/** The warm-up's first seconds, measured on their own: a fresh process's password grants. */
const FRESH_S = Math.min(3, GRANT_WARMUP_S);
const REFRESH_S = knob('BENCH_REFRESH_DURATION', 5);
const CALL_S = knob('BENCH_CALL_DURATION', 4);
const PASSES = knob('BENCH_TOKEN_PASSES', 4);
const REFRESH_CHAINS = 32;
const [SERVER_CORE, CLIENT_CORE] = os.availableParallelism() >= 2 ? ['0', '1'] : ['0', '0'];
const PATH = '/business/score/v2/08041998';

const GOAL_PASSWORD_RATIO = 0.85;
const GOAL_REFRESH_RPS = 3_000;
const GOAL_CALL_RATIO = 0.8;

const progress = (line) => process.stderr.write(`[token-endpoint] ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

// ---------------------------------------------------------------------------------------------------------------
// Drivers (child processes)

/** The gateway's own hashing (worker threads at nice 10), back to back with as many in flight as it has threads. */
async function hashRate({ seconds, core }) {
  const { hashSecret, verifySecret } = await import('../dist/index.js');
  // The same thread count the gateway's pool takes (secret-hash.ts): one per core this process may use, at most 4.
  const threads = Math.max(1, Math.min(os.availableParallelism(), 4));
  const hash = await hashSecret(BENCH_ACCOUNT.password);
  const run = async (ms) => {
    let count = 0;
    const startedAt = performance.now();
    const end = startedAt + ms;
    await Promise.all(
      Array.from({ length: threads }, async () => {
        while (performance.now() < end) {
          if (!(await verifySecret(hash, BENCH_ACCOUNT.password))) throw new Error('verifySecret refused the right password');
          count++;
        }
      }),
    );
    return { count, ms: performance.now() - startedAt };
  };
  await run(500); // threads started, code warm
  const cpuBefore = process.cpuUsage();
  const coreBefore = machineCpuTicks(core);
  const { count, ms } = await run(seconds * 1000);
  const coreAfter = machineCpuTicks(core);
  const { user, system } = process.cpuUsage(cpuBefore);
  // The share of this core that other processes kept busy meanwhile (this process's own time taken out).
  const ownTicks = ((user + system) / 1e6) * CLOCK_TICKS_PER_SECOND;
  const othersOnCore = Math.max(0, coreAfter.busy - coreBefore.busy - ownTicks) / Math.max(1, coreAfter.total - coreBefore.total);
  return { threads, verifications: count, seconds: ms / 1000, rate: count / (ms / 1000), msPerHash: (ms * threads) / count, othersOnCore };
}

/** A password grant over `pool`; returns the parsed token response. */
export async function passwordGrant(pool, account = BENCH_ACCOUNT) {
  const { statusCode, body } = await pool.request({
    path: '/oauth2/v1/token',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', ...account }),
  });
  const text = await body.text();
  if (statusCode !== 200) throw new Error(`password grant answered ${statusCode}: ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/**
 * `chains` concurrent refresh chains over one keep-alive undici Pool: each first gets a grant by password, then sends
 * the refresh grant with its current refresh token and takes the new one from the answer, until `seconds` have passed
 * or `maxRefreshes` refreshes were sent in all. With `protectedPath`, each new access token is used once on it
 * (its answer must be 200): a token verified and remembered by the gateway per refresh. With `chainLength`, a chain
 * starts over with a new password grant after that many refreshes (at most 4 password grants at once, well under the
 * brute-force threshold of attempts in flight per username).
 */
async function refreshChains({ url, chains, seconds, maxRefreshes = Infinity, protectedPath, chainLength = Infinity }) {
  const { Pool } = await import('undici');
  const pool = new Pool(url, { connections: chains, pipelining: 1 });
  try {
    const grants = [];
    for (let i = 0; i < chains; i += 4) {
      grants.push(...(await Promise.all(Array.from({ length: Math.min(4, chains - i) }, () => passwordGrant(pool)))));
    }
    let grantsInFlight = 0;
    const grantWaiters = [];
    const limitedGrant = async () => {
      while (grantsInFlight >= 4) await new Promise((resolve) => grantWaiters.push(resolve));
      grantsInFlight++;
      try {
        return await passwordGrant(pool);
      } finally {
        grantsInFlight--;
        grantWaiters.shift()?.();
      }
    };
    let passwordGrants = grants.length;
    const latencies = [];
    const statuses = {};
    let refreshes = 0;
    let calls = 0;
    let callErrors = 0;
    let chainsEnded = 0;
    let issued = 0;
    const startedAt = performance.now();
    const end = startedAt + seconds * 1000;
    const headers = { 'content-type': 'application/json', client_id: BENCH_ACCOUNT.client_id, client_secret: BENCH_ACCOUNT.client_secret, grant_type: 'refresh_token' };
    await Promise.all(
      grants.map(async (grant) => {
        let refreshToken = grant.refresh_token;
        let length = 0;
        while (performance.now() < end && issued < maxRefreshes) {
          if (length === chainLength) {
            refreshToken = (await limitedGrant()).refresh_token;
            passwordGrants++;
            length = 0;
            if (issued >= maxRefreshes) break;
          }
          length++;
          issued++;
          const sentAt = performance.now();
          const { statusCode, body } = await pool.request({ path: '/oauth2/v1/token', method: 'POST', headers: { ...headers, refresh_token: refreshToken } });
          const text = await body.text();
          latencies.push(performance.now() - sentAt);
          statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
          if (statusCode !== 200) {
            // A refresh token that failed may be used up or its grant revoked: this chain ends here.
            chainsEnded++;
            return;
          }
          refreshes++;
          const answer = JSON.parse(text);
          refreshToken = answer.refresh_token;
          if (protectedPath) {
            const call = await pool.request({ path: protectedPath, method: 'GET', headers: { authorization: `Bearer ${answer.access_token}` } });
            await call.body.dump();
            calls++;
            if (call.statusCode !== 200) callErrors++;
          }
        }
      }),
    );
    const elapsedS = (performance.now() - startedAt) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      chains,
      refreshes,
      seconds: elapsedS,
      rps: refreshes / elapsedS,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      statuses,
      errors: latencies.length - refreshes,
      chainsEnded,
      calls,
      callErrors,
      passwordGrants,
    };
  } finally {
    await pool.close();
  }
}

export const DRIVERS = { 'hash-rate': hashRate, 'refresh-chains': refreshChains };

/** Runs a driver of this file as a child pinned to `cores`. */
export const runDriver = (cores, name, params, timeoutMs) => runPinnedNode(cores, SCRIPT, [name, JSON.stringify(params)], { timeoutMs });

// ---------------------------------------------------------------------------------------------------------------
// wrk with a Lua script: a JSON password grant per request, and a count of answers that are not 200.

const passwordGrantLua = (account) => `
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [[${JSON.stringify({ grant_type: 'password', ...account })}]]
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) not200 = 0 end
function response(status, headers, body) if status ~= 200 then not200 = not200 + 1 end end
function done(summary, latency, requests)
  local n = 0
  for _, thread in ipairs(threads) do n = n + thread:get("not200") end
  io.write(string.format("bench-not-200: %d\\n", n))
end
`;

async function wrkScript({ url, script, connections, durationS, cores }) {
  const args = ['-c', cores, 'wrk', '-t1', `-c${connections}`, `-d${durationS}s`, '--latency', '--timeout', '10s', '-s', script, url];
  const output = await new Promise((resolve, reject) => {
    execFile('taskset', args, { timeout: (durationS + 30) * 1000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`wrk failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
  const not200 = /bench-not-200: (\d+)/.exec(output);
  return { ...parseWrk(output), not200: not200 ? Number(not200[1]) : NaN };
}

/** CPU ticks (user + system) of the threads of `pid` that run at a nice value above 0: the gateway's hashing threads. */
function niceThreadTicks(pid) {
  return threadCpuTicks(pid).reduce((sum, thread) => (thread.nice > 0 ? sum + thread.ticks : sum), 0);
}

// ---------------------------------------------------------------------------------------------------------------
// The benchmark

export async function tokenEndpoint() {
  const startedAt = Date.now();
  const dir = await mkdtemp(join(os.tmpdir(), 'tg-bench-token-'));
  const servers = [];
  try {
    const background = await backgroundLoad();
    const upstream = await startNodeUpstream({ cores: CLIENT_CORE });
    servers.push(upstream.server);
    const accounts = await writeBenchAccounts(join(dir, 'accounts.yaml'));
    const gateway = await startPinnedGateway({
      dir,
      name: 'gateway',
      cores: SERVER_CORE,
      config: ['issuer: https://bench.example.com', `accounts: ${accounts}`, 'log: { level: warn }', 'routes:', `  - { path: /business/, upstream: "${upstream.url}" }`],
    });
    servers.push(gateway.server);
    const pgid = gateway.server.pid;
    const script = join(dir, 'password-grant.lua');
    await writeFile(script, passwordGrantLua(BENCH_ACCOUNT));
    const tokenUrl = `${gateway.url}/oauth2/v1/token`;
    const { access_token: token } = await (
      await fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'password', ...BENCH_ACCOUNT }) })
    ).json();
    const check = await fetch(`${gateway.url}${PATH}`, { headers: { authorization: `Bearer ${token}` } });
    await check.arrayBuffer();
    if (check.status !== 200) throw new Error(`protected call answered ${check.status}`);
    const measured = async (fn) => {
      const { result, cpu } = await withGroupCpu(pgid, fn, { core: SERVER_CORE });
      return { ...result, cpuShare: cpu.share, cpuSeconds: cpu.seconds, othersOnCore: result.othersOnCore ?? cpu.othersOnCore };
    };

    // (a) + (b), interleaved: the hash's own rate in a child on core 0 (the gateway idle beside it), then password
    // grants (wrk -c4 on core 1); the ratio is taken pass by pass, since this machine's speed drifts within a minute.
    progress(`password grants for ${GRANT_WARMUP_S} s (warm-up)`);
    // Its first seconds apart: what a fresh process does, reported beside the goal.
    const freshGrants = await wrkScript({ url: tokenUrl, script, connections: 4, durationS: FRESH_S, cores: CLIENT_CORE });
    if (GRANT_WARMUP_S > FRESH_S) await wrkScript({ url: tokenUrl, script, connections: 4, durationS: GRANT_WARMUP_S - FRESH_S, cores: CLIENT_CORE });
    const hashPasses = [];
    for (let pass = 0; pass < PASSES; pass++) {
      progress(`pass ${pass + 1}: (a) verifySecret for ${HASH_S} s on core ${SERVER_CORE}, (b) password grants for ${GRANT_S} s`);
      const hash = await measured(() => runDriver(SERVER_CORE, 'hash-rate', { seconds: HASH_S, core: SERVER_CORE }, (HASH_S + 30) * 1000));
      const hashTicks = niceThreadTicks(pgid);
      const grants = await measured(() => wrkScript({ url: tokenUrl, script, connections: 4, durationS: GRANT_S, cores: CLIENT_CORE }));
      const hashMs = ((niceThreadTicks(pgid) - hashTicks) * 1000) / CLOCK_TICKS_PER_SECOND;
      grants.hashMsPerGrant = hashMs / grants.requests;
      grants.otherMsPerGrant = (grants.cpuShare * grants.cpuSeconds * 1000 - hashMs) / grants.requests;
      hashPasses.push({ hash, grants, ratio: grants.rps / hash.rate });
    }

    // (c) refresh grants: 32 chains from a Node driver on core 1.
    progress(`(c) refresh grants, ${REFRESH_CHAINS} chains for ${REFRESH_S} s`);
    await runDriver(CLIENT_CORE, 'refresh-chains', { url: gateway.url, chains: REFRESH_CHAINS, seconds: 1 }, 60_000);
    const refresh = await measured(() => runDriver(CLIENT_CORE, 'refresh-chains', { url: gateway.url, chains: REFRESH_CHAINS, seconds: REFRESH_S }, (REFRESH_S + 60) * 1000));

    // (d) protected calls alone, then while a second wrk saturates the token endpoint; PASSES times.
    const protectedRun = () =>
      measured(() => runWrk({ url: `${gateway.url}${PATH}`, headers: { authorization: `Bearer ${token}` }, connections: 50, durationS: CALL_S, cores: CLIENT_CORE }));
    await runWrk({ url: `${gateway.url}${PATH}`, headers: { authorization: `Bearer ${token}` }, connections: 50, durationS: 2, cores: CLIENT_CORE });
    const callPasses = [];
    for (let pass = 0; pass < PASSES; pass++) {
      progress(`pass ${pass + 1}: (d) protected calls ${CALL_S} s alone, ${CALL_S} s beside password grants`);
      const alone = await protectedRun();
      // The password-grant load starts first and ends after the protected run, so it covers the whole of it.
      const saturating = wrkScript({ url: tokenUrl, script, connections: 8, durationS: CALL_S + 2, cores: CLIENT_CORE });
      await sleep(1_000);
      const hashTicks = niceThreadTicks(pgid);
      const beside = await protectedRun();
      const hashShare = (niceThreadTicks(pgid) - hashTicks) / CLOCK_TICKS_PER_SECOND / beside.cpuSeconds;
      const grantsBeside = await saturating;
      callPasses.push({ alone, beside, grantsBeside, hashShare, ratio: beside.rps / alone.rps });
    }

    // ----- report
    const facts = machine();
    const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a');
    const pct = (share) => (Number.isFinite(share) ? `${Math.round(share * 100)}%` : 'n/a');
    const met = (ok) => (ok ? 'met' : '**not met**');
    const perPass = (ratios) => (ratios.length > 1 ? ` (median; per pass ${ratios.map((r) => fmt(r, 2)).join(', ')})` : '');
    const passwordRatios = hashPasses.map((p) => p.ratio);
    const passwordRatio = median(passwordRatios);
    const grantsClean = hashPasses.every((p) => p.grants.not200 === 0 && p.grants.socketErrors === 0);
    const refreshClean = refresh.errors === 0 && refresh.chainsEnded === 0;
    const callRatios = callPasses.map((p) => p.ratio);
    const callRatio = median(callRatios);
    const callsClean = callPasses.every((p) => p.alone.non2xx + p.alone.socketErrors + p.beside.non2xx + p.beside.socketErrors === 0);
    const besideClean = callPasses.every((p) => p.grantsBeside.not200 === 0 && p.grantsBeside.socketErrors === 0);
    const disturbed = [...hashPasses.flatMap((p) => [p.hash, p.grants]), refresh, ...callPasses.flatMap((p) => [p.alone, p.beside])].some((r) => r.othersOnCore > 0.05);
    const row = (label, r, extra = '') =>
      `| ${label} | ${fmt(r.rps)} | ${fmt(r.p50Ms, 2)} | ${fmt(r.p99Ms, 2)} | ${fmt(r.requests)} | ${r.not200 ?? r.non2xx} / ${r.socketErrors} | ${r.cpuShare === undefined ? '(row above)' : pct(r.cpuShare)} | ${r.othersOnCore === undefined ? '(row above)' : pct(r.othersOnCore)} | ${extra} |`;
    /** Gateway CPU per protected call, the hashing threads' share taken out (it still holds the grants' other work). */
    const loopUs = (r, hashShare) => ((r.cpuShare - hashShare) * r.cpuSeconds * 1e6) / r.requests;
    const p = (i) => (PASSES > 1 ? ` pass ${i + 1}` : '');
    const markdown = [
      '# Token endpoint: password hashing, password and refresh grants, protected calls beside them',
      '',
      machineLine(facts),
      `Machine busy before the start (other processes): ${pct(background)} of all cores${background > 0.1 ? ' (**not idle: the figures below shared the machine**)' : ''}.`,
      disturbed ? `\n**Other processes used more than 5% of core ${SERVER_CORE} during some runs (column "others on core ${SERVER_CORE}"): those figures are disturbed.**\n` : '',
      `Gateway (\`token-gateway serve\`, memory store, no policies, \`log.level: warn\`) pinned to core ${SERVER_CORE}; wrk`,
      `(\`-t1\`), the Node drivers and a Node \`http\` upstream (300-byte body) pinned to core ${CLIENT_CORE}. One user and one app,`,
      "hashed with the gateway's `hashSecret` (argon2id, 19 MiB, t=2, p=1). The gateway remembers a verified client secret,",
      'so a password grant costs one argon2 verification (the password) and a refresh grant none.',
      '',
      '## Goals',
      '',
      '| goal | figure | target | result |',
      '|---|---:|---:|---|',
      `| password grants / the hash's own rate | ${fmt(passwordRatio, 2)}${perPass(passwordRatios)}${grantsClean ? '' : ' (errors!)'} | >= ${GOAL_PASSWORD_RATIO} | ${met(grantsClean && passwordRatio >= GOAL_PASSWORD_RATIO)} |`,
      `| (reported) a fresh process: the warm-up's first ${FRESH_S} s of grants / pass 1's hash rate | ${fmt(freshGrants.rps / hashPasses[0].hash.rate, 2)} | none | - |`,
      `| refresh grants per second | ${fmt(refresh.rps)}${refreshClean ? '' : ' (errors!)'} | >= ${fmt(GOAL_REFRESH_RPS)} | ${met(refreshClean && refresh.rps >= GOAL_REFRESH_RPS)} |`,
      `| protected calls beside saturated password grants / alone | ${fmt(callRatio, 2)}${perPass(callRatios)}${callsClean ? '' : ' (errors!)'} | >= ${GOAL_CALL_RATIO} | ${met(callsClean && callRatio >= GOAL_CALL_RATIO)} |`,
      '',
      "## (a) The hash's own rate, (b) password grants",
      '',
      `(a): a child process pinned to core ${SERVER_CORE} calls \`verifySecret\` from \`dist/index.js\` (the gateway's hashing: worker`,
      `thread(s) at nice 10, one per core the process may use: ${hashPasses[0].hash.threads} here) back to back with as many in flight as threads, for`,
      `${HASH_S} s after a 0.5 s warm-up, while the gateway sits idle. (b): wrk with a Lua script posting the JSON password grant`,
      `(\`-c4\`, ${GRANT_S} s) right after. The two alternate, ${PASSES} pass(es), after a ${GRANT_WARMUP_S} s warm-up of (b) (${fmt(freshGrants.rps, 1)} grants/s in`,
      `its first ${FRESH_S} s): this machine's speed drifts by tens of percent within a minute, so each ratio compares figures`,
      'taken seconds apart.',
      '',
      `| pass | (a) verifications/s | ms each | (b) grants/s | p50 ms | p99 ms | not 200 / socket errors | gateway CPU in (b) | of which hashing, ms per grant | the rest, ms per grant | others on core ${SERVER_CORE} (a, b) | (b) / (a) |`,
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...hashPasses.map(
        ({ hash, grants, ratio }, i) =>
          `| ${i + 1} | ${fmt(hash.rate, 1)} | ${fmt(hash.msPerHash, 1)} | ${fmt(grants.rps, 1)} | ${fmt(grants.p50Ms, 2)} | ${fmt(grants.p99Ms, 2)} | ${grants.not200} / ${grants.socketErrors} | ${pct(grants.cpuShare)} | ${fmt(grants.hashMsPerGrant, 2)} | ${fmt(grants.otherMsPerGrant, 2)} | ${pct(hash.othersOnCore)}, ${pct(grants.othersOnCore)} | ${fmt(ratio, 2)} |`,
      ),
      '',
      '"of which hashing" is the CPU time of the gateway\'s nice-10 threads (/proc/<pid>/task) per grant answered;',
      '"the rest" is everything else the gateway process spent per grant (event loop: HTTP, JSON, brute-force counters,',
      'signing the access token, the refresh token; GC). Compare "of which hashing" with (a)\'s "ms each".',
      '',
      '## (c) Refresh grants',
      '',
      `A Node driver (undici \`Pool\`, ${REFRESH_CHAINS} keep-alive connections) pinned to core ${CLIENT_CORE} gets ${REFRESH_CHAINS} grants by password, then runs`,
      `${REFRESH_CHAINS} chains at once, each sending the refresh grant (headers) with its current refresh token and taking the new one from`,
      `the answer, for ${REFRESH_S} s (after a 1 s warm-up run with other grants).`,
      '',
      `| refreshes | req/s | p50 ms | p99 ms | answers by status | chains ended by an error | gateway CPU | others on core ${SERVER_CORE} |`,
      '|---:|---:|---:|---:|---|---:|---:|---:|',
      `| ${fmt(refresh.refreshes)} | ${fmt(refresh.rps)} | ${fmt(refresh.p50Ms, 2)} | ${fmt(refresh.p99Ms, 2)} | ${Object.entries(refresh.statuses).map(([s, n]) => `${s}: ${fmt(n)}`).join(', ')} | ${refresh.chainsEnded} | ${pct(refresh.cpuShare)} (${fmt((refresh.cpuShare * 1e6) / refresh.rps)} µs per refresh) | ${pct(refresh.othersOnCore)} |`,
      '',
      '## (d) Protected calls while the token endpoint is saturated',
      '',
      `\`wrk -t1 -c50\` on a protected route with one token, ${CALL_S} s alone, then ${CALL_S} s while a second wrk (\`-c8\`, the Lua password`,
      `grant) keeps the token endpoint saturated: it starts 1 s before the protected run and ends about 1 s after it, 8 grants`,
      `in flight (one hashing, seven queued in the gateway). Both wrks and the upstream share core ${CLIENT_CORE}. ${PASSES} pass(es) after a`,
      '2 s warm-up.',
      '',
      `| load | req/s | p50 ms | p99 ms | requests | not 200 / socket errors | gateway CPU | others on core ${SERVER_CORE} | note |`,
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
      ...callPasses.flatMap((c, i) => [
        row(`protected calls alone${p(i)}`, c.alone, `${fmt(loopUs(c.alone, 0), 1)} µs gateway CPU per call`),
        row(
          `protected calls beside password grants${p(i)}`,
          c.beside,
          `${fmt(c.ratio, 2)}x alone; hashing thread(s) ${pct(c.hashShare)} of core ${SERVER_CORE}; ${fmt(loopUs(c.beside, c.hashShare), 1)} µs non-hashing gateway CPU per call`,
        ),
        row(`password grants meanwhile${p(i)} (${CALL_S + 2} s)`, { ...c.grantsBeside, cpuShare: undefined, othersOnCore: undefined }, `${fmt(c.grantsBeside.rps / hashPasses[Math.min(i, hashPasses.length - 1)].hash.rate, 2)}x the hash's rate of pass ${Math.min(i, hashPasses.length - 1) + 1}`),
      ]),
      '',
      `"gateway CPU" is the gateway process's user + system time (all its threads, hashing included, from /proc) over the`,
      `run's wall time, as a share of one core: about 100% means core ${SERVER_CORE} was the limit. "others on core ${SERVER_CORE}" is the busy time`,
      `of core ${SERVER_CORE} that was not the gateway's (or, in (a), the hashing child's): other processes on the machine; above a few % a`,
      "figure is disturbed. The hashing threads' share is the CPU time of the gateway's threads running at nice 10",
      '(/proc/<pid>/task) over the protected run; "non-hashing gateway CPU per call" is the rest of the gateway\'s CPU time',
      '(event loop, GC, and the password grants\' own work outside argon2) over the protected calls completed.',
      '"not 200" counts answers other than 200 for the password grants (a Lua',
      "`response()` hook in wrk) and answers of 400 or more for protected calls (wrk's own count).",
      besideClean ? '' : '\n**Some password grants beside the protected calls were not answered 200.**',
      '',
      `Knobs: \`BENCH_HASH_DURATION\` (${HASH_S} s), \`BENCH_GRANT_DURATION\` (${GRANT_S} s), \`BENCH_GRANT_WARMUP\` (${GRANT_WARMUP_S} s),`,
      `\`BENCH_REFRESH_DURATION\` (${REFRESH_S} s), \`BENCH_CALL_DURATION\` (${CALL_S} s), \`BENCH_TOKEN_PASSES\` (${PASSES}, for (a)+(b) and for (d)). This run took ${fmt((Date.now() - startedAt) / 1000)} s.`,
      '',
    ].join('\n');
    const file = await writeResult('token-endpoint', markdown);
    return { markdown, file, hashPasses, refresh, callPasses };
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------

if (isMainScript(import.meta.url)) {
  const [driver, params] = process.argv.slice(2);
  if (driver) {
    if (!DRIVERS[driver]) throw new Error(`unknown driver ${driver}; one of ${Object.keys(DRIVERS).join(', ')}`);
    const result = await DRIVERS[driver](JSON.parse(params ?? '{}'));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  } else {
    await runBenchmark(tokenEndpoint);
  }
}
