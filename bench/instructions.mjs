// Instructions per protected call, counted rather than timed: the gateway as shipped (protected-call.mjs's full
// pipeline, access log at info to a file) and the bare undici forwarder (bench/peers/undici-forwarder.mjs, the Node
// floor), each run under valgrind's callgrind on core 0 and driven by a fixed-count client on core 1. After a warm-up
// with the instrumentation off (valgrind still runs the program, slowly), callgrind's counters are zeroed, switched on
// for exactly BENCH_INSTR_CALLS calls, switched off and dumped; the dump's total over the calls is the figure. Every
// thread of the process is counted (V8's helpers, libuv's pool), as /proc counts CPU time.
//
// Why: CPU time per call on these shared VMs moves by tens of percent between runs and machines; an instruction count
// that carries no one-off (ONE_OFFS below: a full collection, the optimizing compiler at work) moves by a few percent
// at most (the floor: 142.0k to 147.5k over the four counts after the first in two runs of one VM), whatever else the
// machine is doing, so a change to the hot path of a few percent shows in it where time
// drowns it. Only user-space instructions are counted: what the kernel does for a write or a read is not, so a change
// of syscalls shows in the native rows only. It is not the goal: the goal (CPU per call at most 1.15x the floor's) is time, and
// time also pays for cache misses and mispredicted branches, which instructions do not show. So, unless
// BENCH_INSTR_NATIVE=0, both servers also run natively (same pinning, wrk -c50 on core 1 against the nginx upstream of
// protected-call.mjs) and their CPU per call from /proc is printed beside the counts: the gap between the two ratios
// is what the gateway pays over the floor per instruction (working set, cache, branches) rather than in instructions.
//
// BENCH_INSTR_ROWS picks the servers (ROWS below; by default the gateway as shipped and the floor). With all six,
// the differences between neighbouring rows are a stage budget counted in instructions: the access line, the three
// policies, the gateway's own Bearer path and forwarding over a plain undici + jose + LRU forwarder, and that
// forwarder's jose check over the floor. Unlike a profile's, those figures repeat from one run and machine to the next.
//
//   node bench/instructions.mjs                   the benchmark
//   node bench/instructions.mjs drive '<json>'    the driver child, JSON result on stdout
import { execFile } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { BENCH_ACCOUNT, freePort, GATEWAY_NODE_FLAGS, knob, machineLine, runPinnedNode, startNodeUpstream, writeBenchAccounts, writeResult, isMainScript, runBenchmark } from './lib.mjs';
import { runWrk, startPinned, waitForPort } from './load.mjs';
import { nginxArgs, upstreamConfig } from './peers/nginx.mjs';
import { benchGatewayYaml, ISSUER, passwordGrant, POLICIES, publicKeyPem } from './protected-call.mjs';

const SCRIPT = fileURLToPath(import.meta.url);
const BENCH_DIR = dirname(SCRIPT);
const REPO_DIR = dirname(BENCH_DIR);
const PATH = '/business/score/v2/08041998';
const [SERVER_CORE, CLIENT_CORE] = os.availableParallelism() >= 2 ? ['0', '1'] : ['0', '0'];

/** Calls before counting: the JIT's tiers settle (about 5 s of native load, a few tens of thousands of calls). */
const WARMUP_CALLS = knob('BENCH_INSTR_WARMUP', 40_000, { whole: true });
/** Calls counted, per count. */
const COUNTED_CALLS = knob('BENCH_INSTR_CALLS', 5_000, { whole: true });
/**
 * Counts per server, one after the other in the same process; the figure is their median. One count in a few carries
 * a one-off, which the median drops and the spread shows: a full collection (under valgrind, 30 to 60 times slower,
 * the collections V8 starts by time fall into counts; natively the gateway made none in 25 s of load) or the
 * optimizing compiler recompiling what was thrown away. Each count's share of both is read from its dump and printed
 * (ONE_OFFS), with the median of the counts less them.
 */
const COUNTS = knob('BENCH_INSTR_COUNTS', 3, { whole: true });
/** 1: also the native CPU per call from /proc (needs wrk and nginx, as protected-call.mjs does); 0: counts only. */
const NATIVE = knob('BENCH_INSTR_NATIVE', 1, { zero: true, whole: true }) !== 0;
const NATIVE_DURATION_S = knob('BENCH_INSTR_NATIVE_DURATION', 10);
/**
 * 1: the temp dir stays, and its path is printed: each count's callgrind dump (`<row>.callgrind.<n>`), for
 * `callgrind_annotate`, which names node's own functions and V8's builtins (JIT-compiled JavaScript shows as bare
 * addresses).
 */
const KEEP = process.env.BENCH_INSTR_KEEP === '1';
/** As protected-call.mjs drives every server: wrk -c50. The fixed-count driver keeps as many calls in flight. */
const CONNECTIONS = 50;
/** valgrind runs a Node server 30 to 60 times slower: starting one takes tens of seconds, the warm-up minutes. */
const VALGRIND_START_MS = 180_000;

const progress = (line) => process.stderr.write(`[instructions] ${line}\n`);

/**
 * The driver: exactly `calls` GETs of `url` over `connections` keep-alive connections (an undici Pool), each body read
 * to its end; anything but a 200 is counted and reported, and the benchmark stops on it.
 */
async function drive({ url, token, calls, connections }) {
  const { origin, pathname } = new URL(url);
  const pool = new Pool(origin, { connections, pipelining: 1 });
  const headers = token ? { authorization: `Bearer ${token}` } : {};
  let next = 0;
  let failed = 0;
  let firstFailure;
  const startedAt = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < calls) {
        next += 1;
        try {
          const { statusCode, body } = await pool.request({ path: pathname, method: 'GET', headers });
          await body.dump();
          if (statusCode !== 200) {
            failed += 1;
            firstFailure ??= `status ${statusCode}`;
          }
        } catch (error) {
          failed += 1;
          firstFailure ??= error.message;
        }
      }
    }),
  );
  const seconds = (performance.now() - startedAt) / 1000;
  await pool.close();
  return { calls, seconds, failed, firstFailure };
}

async function driveCalls(url, token, calls) {
  // Under valgrind a call takes about 2 ms; a generous bound, so that only a hung server trips it.
  const result = await runPinnedNode(CLIENT_CORE, SCRIPT, ['drive', JSON.stringify({ url, token, calls, connections: CONNECTIONS })], {
    timeoutMs: 60_000 + calls * 20,
  });
  if (result.failed > 0) throw new Error(`${url}: ${result.failed} of ${calls} calls failed (first: ${result.firstFailure})`);
  return result;
}

const callgrindControl = (args) =>
  new Promise((resolve, reject) => {
    execFile('callgrind_control', args, { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`callgrind_control ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });

/**
 * The events of a callgrind dump (`events:` names them, `totals:` or `summary:` holds their sums) as a Map from
 * event name (Ir: instructions executed) to count.
 */
export function callgrindTotals(text) {
  const events = /^events:\s*(.+)$/m.exec(text)?.[1].trim().split(/\s+/);
  const totals = (/^totals:\s*(.+)$/m.exec(text) ?? /^summary:\s*(.+)$/m.exec(text))?.[1].trim().split(/\s+/).map(Number);
  if (!events || !totals || totals.some((n) => !Number.isFinite(n))) throw new Error('not a callgrind dump: no events and totals lines');
  return new Map(events.map((name, i) => [name, totals[i] ?? 0]));
}

/**
 * Each function's own instructions (Ir) in a callgrind dump, by name: what `callgrind_annotate` prints as self cost.
 * Cost lines follow an `fn=` line; the one after a `calls=` line is the callee's inclusive cost, charged to it
 * already, so it is skipped. Names are compressed (`(12) name` defines id 12 for `fn=` and `cfn=` alike, `(12)`
 * refers to it), and a recursion level is a suffix (`'2`) of the same function. Needs `positions: line` and `events: Ir`
 * first, as the dumps here have (callgrind's defaults); any other dump is refused.
 */
export function callgrindSelfCosts(text) {
  // The second column is read as Ir: refuse a dump with other positions (`--dump-instr=yes`) or events first.
  const positions = /^positions:\s*(.+)$/m.exec(text)?.[1].trim() ?? 'line';
  const firstEvent = /^events:\s*(\S+)/m.exec(text)?.[1];
  if (positions !== 'line' || firstEvent !== 'Ir') throw new Error(`callgrindSelfCosts reads dumps of "positions: line" and "events: Ir ...", got positions ${positions}, first event ${firstEvent ?? 'none'}`);
  const names = new Map();
  const nameOf = (spec) => {
    const compressed = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (!compressed) return spec;
    const [, id, name] = compressed;
    if (name !== undefined) names.set(id, name);
    return names.get(id) ?? spec;
  };
  const self = new Map();
  let fn;
  let callCost = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) fn = nameOf(line.slice(3)).replace(/'\d+$/, '');
    else if (line.startsWith('cfn=')) nameOf(line.slice(4));
    else if (line.startsWith('calls=')) callCost = true;
    else if (/^[0-9+*-]/.test(line)) {
      if (callCost) {
        callCost = false;
        continue;
      }
      const ir = Number(line.split(' ')[1] ?? 0);
      if (fn !== undefined && ir > 0) self.set(fn, (self.get(fn) ?? 0) + ir);
    }
  }
  return self;
}

/**
 * What a count can carry that is not the calls' own work, by V8's function names in the dump: its full (mark-compact)
 * collector, on the main thread and its helpers (marking, sweeping, evacuation), and its optimizing compiler.
 * Scavenges, the young generation's collections that every few hundred calls pay for, are the calls' own: their
 * functions also evacuate and sweep (`Scavenger::Evacuate...`, `ArrayBufferSweeper::SweepingJob::SweepYoung`, the
 * new space's `EvacuationAllocator`), so names of the young generation are left out first.
 */
const FULL_COLLECTOR = /MarkCompact|ConcurrentMarking|IncrementalMarking|MarkingVisitor|MarkingBarrier|MarkingWorklist|MarkBit|Sweeper::|Evacuat|RecordMigratedSlotVisitor|PointersUpdating/;
const YOUNG_GENERATION = /Scaveng|Young|Minor|SemiSpace|NewSpace|EvacuationAllocator|ArrayBufferSweeper|ClearMemoryChunkData/;
export const ONE_OFFS = Object.freeze([
  { id: 'fullCollection', label: 'full collection', of: (name) => FULL_COLLECTOR.test(name) && !YOUNG_GENERATION.test(name) },
  { id: 'compiler', label: 'optimizing compiler', of: (name) => /v8::internal::(?:compiler|maglev)::/.test(name) },
]);

/** A count from its dump: instructions per call, and the ONE_OFFS' share of them per call. */
export function countOf(text, calls) {
  const count = { ir: callgrindTotals(text).get('Ir') / calls, ...Object.fromEntries(ONE_OFFS.map(({ id }) => [id, 0])) };
  count.steady = count.ir;
  for (const [name, ir] of callgrindSelfCosts(text)) {
    const oneOff = ONE_OFFS.find(({ of }) => of(name));
    if (!oneOff) continue;
    count[oneOff.id] += ir / calls;
    count.steady -= ir / calls;
  }
  return count;
}

/** The dump files callgrind has written for `outFile` so far (`<outFile>.<n>`, one per `callgrind_control -d`). */
function dumps(outFile) {
  const folder = dirname(outFile);
  const prefix = `${outFile.slice(folder.length + 1)}.`;
  return readdirSync(folder)
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => join(folder, name));
}

/**
 * One server pinned to core 0, from its start to its stop: `program` and `argv` run it, `port` is where it listens,
 * `token` (if given) how to get its caller's token once it does. `use` gets its process, URL and token.
 */
async function serving(name, program, argv, { port, stdout, token: tokenOf }, { startMs, stopMs }, use) {
  const server = startPinned(name, SERVER_CORE, program, argv, { cwd: REPO_DIR, stdout });
  try {
    await waitForPort(server, port, startMs);
    const url = `http://127.0.0.1:${port}`;
    return await use(server, url, tokenOf ? await tokenOf(url) : undefined);
  } finally {
    await server.stop(stopMs);
  }
}

/**
 * One server under callgrind: started with the instrumentation off, warmed up, then counted COUNTS times. `command`
 * is node's arguments (flags and script), `args` the script's. Resolves with each count (countOf).
 */
function counted(dir, name, command, args, options) {
  const outFile = join(dir, `${name}.callgrind`);
  const valgrind = ['--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${outFile}`, process.execPath];
  return serving(`${name} (callgrind)`, 'valgrind', [...valgrind, ...command, ...args], options, { startMs: VALGRIND_START_MS, stopMs: 30_000 }, async (server, url, token) => {
    progress(`${name}: warm-up, ${WARMUP_CALLS} calls under valgrind`);
    await driveCalls(`${url}${PATH}`, token, WARMUP_CALLS);
    const perCall = [];
    for (let count = 0; count < COUNTS; count++) {
      // taskset and valgrind exec into the tool, so the child's pid is the counted process.
      await callgrindControl(['-z', String(server.pid)]);
      await callgrindControl(['-i', 'on', String(server.pid)]);
      await driveCalls(`${url}${PATH}`, token, COUNTED_CALLS);
      await callgrindControl(['-i', 'off', String(server.pid)]);
      const before = new Set(dumps(outFile));
      await callgrindControl(['-d', String(server.pid)]);
      const [dump] = dumps(outFile).filter((file) => !before.has(file));
      if (!dump) throw new Error(`${name}: callgrind wrote no dump for count ${count + 1}`);
      const measured = countOf(readFileSync(dump, 'utf8'), COUNTED_CALLS);
      perCall.push(measured);
      progress(`${name}: count ${count + 1}: ${Math.round(measured.ir)} instructions per call (${oneOffsText(measured)})`);
    }
    return perCall;
  });
}

/** One server natively, pinned to core 0: a warm-up, then CPU per call from /proc over a wrk run. */
function native(name, command, args, options) {
  return serving(name, process.execPath, [...command, ...args], options, { startMs: 30_000, stopMs: 10_000 }, async (server, url, token) => {
    const wrk = (durationS) =>
      runWrk({ url: `${url}${PATH}`, headers: token ? { Authorization: `Bearer ${token}` } : {}, connections: CONNECTIONS, durationS, cores: CLIENT_CORE, serverPgid: server.pid, serverCore: SERVER_CORE });
    await wrk(5);
    const run = await wrk(NATIVE_DURATION_S);
    if (run.non2xx > 0 || run.socketErrors > 0) throw new Error(`${name}: ${run.non2xx} non-2xx, ${run.socketErrors} socket errors`);
    progress(`${name}: natively ${run.cpuUsPerRequest.toFixed(1)} µs of CPU per call, ${Math.round(run.rps)} req/s`);
    return run;
  });
}

/** The upstream: protected-call.mjs's nginx when the native rows run (it needs nginx anyway), else a Node one. */
async function startUpstream(dir) {
  if (!NATIVE) {
    const upstream = await startNodeUpstream({ cores: CLIENT_CORE });
    return { server: upstream.server, port: upstream.port, kind: 'a Node `http` upstream (300-byte body)' };
  }
  const port = await freePort();
  await writeFile(join(dir, 'upstream.conf'), upstreamConfig(dir, 'upstream', port));
  const server = startPinned('upstream', CLIENT_CORE, 'nginx', nginxArgs(dir, join(dir, 'upstream.conf'), 'upstream'));
  await waitForPort(server, port);
  return { server, port, kind: "protected-call.mjs's nginx upstream (306-byte JSON body)" };
}

/**
 * The servers that can be counted, in the order they run and are reported: each neighbour's difference is one stage
 * (STAGES, below). `gateway` and `undici` are protected-call.mjs's `gateway-full` and floor rows; `gateway-quiet`,
 * `gateway-bearer-only` and `undici-jose` are its `gateway-full-quiet`, `gateway-bearer-only` and `undici-jose`.
 * `undici-token` is the floor sent the token anyway: what carrying a credential costs before anything checks it.
 */
export const ROWS = [
  { id: 'gateway', label: 'gateway as shipped (full pipeline, log info to a file)', gateway: { logLevel: 'info', fullPipeline: true } },
  { id: 'gateway-quiet', label: 'gateway: full pipeline, log warn (quiet)', gateway: { logLevel: 'warn', fullPipeline: true } },
  { id: 'gateway-bearer-only', label: 'gateway: Bearer check only (no policies), log warn (quiet)', gateway: { logLevel: 'warn', fullPipeline: false } },
  { id: 'undici-jose', label: 'Node http + undici Pool + jose ES256, verified-token LRU, no log', floor: { withKey: true, sendsToken: true } },
  { id: 'undici-token', label: 'bare undici forwarder, sent the same Authorization header (not checked, forwarded)', floor: { withKey: false, sendsToken: true } },
  { id: 'undici', label: 'bare undici forwarder (no auth, no log)', floor: { withKey: false, sendsToken: false } },
];
const DEFAULT_ROWS = 'gateway,undici';

/** BENCH_INSTR_ROWS: row ids separated by commas (or `all`); the rows run in ROWS's order whatever order is given. */
export function wantedRows(value = process.env.BENCH_INSTR_ROWS ?? DEFAULT_ROWS) {
  const ids = value.trim() === 'all' ? ROWS.map((row) => row.id) : value.split(',').map((id) => id.trim()).filter(Boolean);
  const unknown = ids.filter((id) => !ROWS.some((row) => row.id === id));
  if (unknown.length > 0 || ids.length === 0) {
    throw new Error(`BENCH_INSTR_ROWS must name rows among ${ROWS.map((row) => row.id).join(', ')} (or be all), got "${value}"`);
  }
  return ROWS.filter((row) => ids.includes(row.id));
}

/**
 * What each row needs to start: node's arguments, the script's, and how it gets its token. Every gateway has its own
 * key ring; undici-jose checks tokens against one public key, so a native gateway is started once, briefly, to issue
 * a token and publish that key (its JWKS, as a PEM file).
 */
async function servers(dir, upstreamPort, rows) {
  await writeBenchAccounts(join(dir, 'accounts.yaml'));
  await mkdir(join(dir, 'policies'));
  await writeFile(join(dir, 'policies', 'bench.yaml'), POLICIES);
  const gateway = async ({ logLevel, fullPipeline }, run) => {
    const port = await freePort();
    const config = join(dir, `gateway-${port}.yaml`);
    await writeFile(config, benchGatewayYaml({ port, accountsFile: join(dir, 'accounts.yaml'), logLevel, upstreamPort, policiesFolder: join(dir, 'policies'), fullPipeline }));
    // As the README tells operators to run it: the access log is standard output, redirected to a file.
    const logFd = openSync(join(dir, `gateway-${port}.log`), 'w');
    try {
      return await run([...GATEWAY_NODE_FLAGS, join(REPO_DIR, 'dist', 'cli', 'main.js')], ['serve', '--config', config], { port, stdout: logFd, token: (url) => passwordGrant(url, BENCH_ACCOUNT) });
    } finally {
      closeSync(logFd);
    }
  };
  let issued;
  if (rows.some((row) => row.floor?.sendsToken)) {
    issued = await gateway({ logLevel: 'warn', fullPipeline: false }, (command, args, options) =>
      serving('token issuer', process.execPath, [...command, ...args], options, { startMs: 30_000, stopMs: 10_000 }, async (_server, url, token) => {
        const pem = join(dir, 'gateway-public-key.pem');
        await writeFile(pem, await publicKeyPem(url, token));
        return { token, pem };
      }),
    );
  }
  const floor = async ({ withKey, sendsToken }, run) => {
    const port = await freePort();
    const keyArgs = withKey ? [issued.pem, ISSUER] : [];
    return run([join(BENCH_DIR, 'peers', 'undici-forwarder.mjs')], [String(port), `http://127.0.0.1:${upstreamPort}`, ...keyArgs], {
      port,
      token: sendsToken ? async () => issued.token : undefined,
    });
  };
  return (row, run) => (row.gateway ? gateway(row.gateway, run) : floor(row.floor, run));
}

export async function instructions() {
  const startedAt = Date.now();
  const rows = wantedRows();
  const dir = await mkdtemp(join(os.tmpdir(), 'tg-bench-instructions-'));
  let upstream;
  try {
    upstream = await startUpstream(dir);
    const start = await servers(dir, upstream.port, rows);
    const results = [];
    for (const row of rows) {
      progress(`${row.id} under callgrind${row.gateway ? ' (starting takes a minute)' : ''}`);
      results.push({ row, counts: await start(row, (command, args, options) => counted(dir, row.id, command, args, options)) });
    }
    if (NATIVE) {
      for (const result of results) result.native = await start(result.row, (command, args, options) => native(result.row.id, command, args, options));
    }
    const markdown = report({ results, upstream: upstream.kind, startedAt });
    return { markdown, file: await writeResult('instructions', markdown) };
  } finally {
    await upstream?.server.stop();
    if (KEEP) progress(`kept ${dir} (BENCH_INSTR_KEEP=1): the callgrind dumps are its *.callgrind.<n> files`);
    else await rm(dir, { recursive: true, force: true });
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const thousands = (n) => `${(n / 1000).toFixed(1)}k`;
const oneOffsText = (count) => `${ONE_OFFS.map(({ id, label }) => `${label} ${thousands(count[id])}`).join(', ')} per call`;
const spread = (values) => (values.length > 1 ? `${(((Math.max(...values) - Math.min(...values)) / median(values)) * 100).toFixed(2)}%` : '-');

/** What the difference between each row and the next one in ROWS is, when both ran. */
const STAGES = [
  { from: 'gateway', to: 'gateway-quiet', stage: 'the access line (`info` against `warn`, to a file)' },
  { from: 'gateway-quiet', to: 'gateway-bearer-only', stage: 'the three policies and their chain' },
  { from: 'gateway-bearer-only', to: 'undici-jose', stage: "the gateway's own: exchange, route and phases, Bearer and revocation checks, forwarding glue, metrics, over a plain undici + jose + LRU forwarder" },
  { from: 'undici-jose', to: 'undici-token', stage: "jose's check and the verified-token LRU" },
  { from: 'undici-token', to: 'undici', stage: "the credential's bytes: the token's Authorization header, parsed by node and forwarded by undici, which the floor is never sent" },
];

/** How much of the gateway's CPU over the floor its extra instructions explain, at the floor's cost per instruction. */
function accountedFor(share) {
  if (share <= 0 || !Number.isFinite(share)) {
    return `In this pass the gateway used no more CPU per call than the floor natively (one pass each on these VMs moves by tens of percent), so the pass says nothing about how its extra instructions cost.`;
  }
  const percent = `${(share * 100).toFixed(0)}%`;
  if (share <= 1) {
    return `Of the gateway's CPU over the floor, ${percent} is accounted for by its extra instructions at the floor's cost per instruction; the rest is the higher cost of each of its instructions (ns per instruction above: cache misses, branches, a larger working set).`;
  }
  return `The gateway's extra instructions, at the floor's cost per instruction, would account for ${percent} of its CPU over the floor: in this pass each of its instructions cost less than the floor's (ns per instruction above), so this single native pass says nothing about cache or working set; one pass of each on these VMs moves by tens of percent.`;
}

function report({ results, upstream, startedAt }) {
  const byId = new Map(
    results.map((result) => [result.row.id, { ...result, ir: median(result.counts.map(({ ir }) => ir)), steady: median(result.counts.map(({ steady }) => steady)) }]),
  );
  const nsPerInstruction = ({ native, ir }) => (native ? ((native.cpuUsPerRequest * 1000) / ir).toFixed(3) : '-');
  const rows = [...byId.values()].map((result) => {
    const irs = result.counts.map(({ ir }) => ir);
    const oneOffs = result.counts.map((count) => ONE_OFFS.map(({ id }) => thousands(count[id])).join(' + ')).join(', ');
    return `| ${result.row.label} | ${irs.map(thousands).join(', ')} | ${spread(irs)} | ${oneOffs} | ${thousands(result.steady)} | ${result.native ? result.native.cpuUsPerRequest.toFixed(1) : '-'} | ${nsPerInstruction(result)} |`;
  });
  const anyNative = results.some((result) => result.native);
  const lines = [
    '# Protected call: instructions per call, gateway and Node floor',
    '',
    machineLine(),
    '',
    `Each server alone under valgrind's callgrind on core 0 (all threads counted), driven over ${CONNECTIONS} keep-alive`,
    `connections from core 1 by a fixed-count client: ${WARMUP_CALLS} calls of warm-up uncounted, then ${COUNTS} count(s) of exactly`,
    `${COUNTED_CALLS} calls each; a server's figure is the median of its counts. Upstream: ${upstream}.` +
      (anyNative ? ` Natively: each server pinned to core 0, 5 s of wrk -c${CONNECTIONS} as warm-up, then ${NATIVE_DURATION_S} s measured (server CPU from /proc, all threads).` : ' Native CPU not measured (BENCH_INSTR_NATIVE=0).'),
    '',
    '| server | instructions per call, each count | spread | of which full collection + optimizing compiler, each count | less those, median | CPU µs per call, native | ns per instruction |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `"Of which": each count's instructions in V8's full (mark-compact) collector, on every thread, and in its optimizing compiler, per call, read from the dump by function name. Neither is the calls' own work: under valgrind, 30 to 60 times slower than native, the collections V8 starts by time fall into the counts, and a function thrown away is compiled again. "Less those" is the median of each count less both; the code that runs unoptimized until it is compiled again, and the young generation's collections, stay in it.`,
    '',
  ];
  const gateway = byId.get('gateway');
  const floor = byId.get('undici');
  if (gateway && floor) {
    const irRatio = gateway.ir / floor.ir;
    lines.push(
      `**Instructions, gateway ÷ floor: ${irRatio.toFixed(3)}** (${thousands(gateway.ir - floor.ir)} instructions per call over the floor's ${thousands(floor.ir)}); less the full collection and the compiler, ${(gateway.steady / floor.steady).toFixed(3)}.`,
    );
    if (gateway.native && floor.native) {
      const cpuRatio = gateway.native.cpuUsPerRequest / floor.native.cpuUsPerRequest;
      lines.push(
        `CPU per call, gateway ÷ floor, natively in this run: ${cpuRatio.toFixed(3)} (goal, read from protected-call.mjs's interleaved passes: at most 1.15; this single pass: ${cpuRatio <= 1.15 ? 'met' : 'not met'}).`,
        accountedFor(cpuRatio > 1 ? (irRatio - 1) / (cpuRatio - 1) : 0),
      );
    }
    lines.push(`An instruction ratio at or under 1.15 is needed for the CPU goal on a machine where the gateway's instructions cost what the floor's do; it is not enough where they cost more.`, '');
  }
  const stages = STAGES.filter(({ from, to }) => byId.has(from) && byId.has(to));
  if (stages.length > 0) {
    lines.push(
      '### Stages, counted',
      '',
      'Each stage is the difference between two rows above, whose configurations differ by that stage alone.',
      '',
      '| stage | rows | instructions per call | less full collection and compiler | CPU µs per call, native |',
      '|---|---|---:|---:|---:|',
      ...stages.map(({ from, to, stage }) => {
        const [a, b] = [byId.get(from), byId.get(to)];
        const cpu = a.native && b.native ? (a.native.cpuUsPerRequest - b.native.cpuUsPerRequest).toFixed(1) : '-';
        return `| ${stage} | \`${from}\` − \`${to}\` | ${thousands(a.ir - b.ir)} | ${thousands(a.steady - b.steady)} | ${cpu} |`;
      }),
      '',
      'A native difference is one pass of each row, one after the other: on these VMs it moves by several µs between runs. A count without a one-off moves by a few percent at most; one with a full collection or the compiler at work moves by tens (the spread column), and the column less them keeps part of it (the code that runs unoptimized until it is compiled again): read a stage of a few thousand instructions as that, not to the last hundred.',
      '',
    );
  }
  lines.push(`Whole benchmark: ${Math.round((Date.now() - startedAt) / 1000)} s.`, '');
  return lines.join('\n');
}

if (isMainScript(import.meta.url)) {
  const [driver, params] = process.argv.slice(2);
  if (driver === 'drive') {
    process.stdout.write(`${JSON.stringify(await drive(JSON.parse(params)))}\n`);
    process.exit(0);
  } else if (driver) {
    throw new Error(`unknown driver ${driver}; the only one is drive`);
  } else {
    await runBenchmark(instructions);
  }
}
