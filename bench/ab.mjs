// A/B of gateway builds or settings: the gateway as shipped (protected-call.mjs's full pipeline, access log to a file
// in the temp dir, or to a pipe), one process per variant, all on core 0 and frozen but for the one driven, wrk and the nginx
// upstream on core 1; passes interleaved (each pass starting one variant further on), each variant thawed, given
// 500 ms and 2 s of unmeasured load, then measured.
// Prints req/s, server CPU per request and wrk's p99 / p99.9 per pass, then medians. Writes no result file: what it
// compares is whatever you built. Its temp dir goes at the end (BENCH_AB_KEEP=1 keeps it and prints where).
// Bounded: BENCH_AB_PASSES x variants x (BENCH_AB_DURATION + 2.5) s after a 6 s
// warm-up of each.
//
//   node bench/ab.mjs <name>=<root>[;<node flags>][;<log level>][;pipe] ...
//
// <root> holds a build: `dist/`, `package.json` and `node_modules` (a link to the checkout's). For example, with the
// current build against the one before:
//   npm run build && mkdir -p /tmp/ab-new && cp -r dist package.json /tmp/ab-new/ && ln -s "$PWD/node_modules" /tmp/ab-new/
//   git stash && npm run build && (same into /tmp/ab-old) && git stash pop && npm run build
//   node bench/ab.mjs new=/tmp/ab-new old=/tmp/ab-old 'stgc=/tmp/ab-new;--single-threaded-gc' 'quiet=/tmp/ab-new;;warn'
//
// Each variant runs with the node flags its build ships with (src/cli/node-flags.ts; none for a build from before
// them), then its own <node flags>: node takes the last value of a flag, so 'four=/tmp/ab-new;--v8-pool-size=4' runs
// the build on node's default of four V8 helper threads.
//
// `pipe` sends the variant's standard output into a FIFO read by `cat` on core 1 (protected-call.mjs's pipe row)
// instead of a file. Each pass also splits the server's CPU per request into its main thread's and the other
// threads' (V8's helpers, libuv's pool: a log written to a pipe goes through the pool), from /proc/<pid>/task.
import { execFileSync } from 'node:child_process';
import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { BENCH_ACCOUNT, freePort, knob, percentile, shippedNodeFlags, writeBenchAccounts, isMainScript } from './lib.mjs';
import { CLOCK_TICKS_PER_SECOND, runWrk, startPinned, threadCpuTicks, waitForPort } from './load.mjs';
import { nginxArgs, upstreamConfig } from './peers/nginx.mjs';
import { benchGatewayYaml, passwordGrant, POLICIES } from './protected-call.mjs';

const PASSES = knob('BENCH_AB_PASSES', 6);
const DURATION_S = knob('BENCH_AB_DURATION', 5);
// The variants' logs (hundreds of MB after a few passes) are deleted at the end unless kept, e.g. to read what a
// `--trace-gc` variant printed into its log.
const KEEP = process.env.BENCH_AB_KEEP === '1';
const PATH = '/business/score/v2/08041998';

function variantsOf(args) {
  const variants = args.map((arg) => {
    const usage = new Error(`not <name>=<root>[;<node flags>][;<log level>][;pipe]: ${arg}`);
    const match = /^([\w.-]+)=(.+)$/.exec(arg);
    if (!match) throw usage;
    // `pipe` is the last field whatever comes before it (`x=/r;;pipe` too); a log level the gateway does not know is
    // refused by its config check, which waitForPort reports at once.
    const fields = match[2].split(';');
    const pipe = fields.length > 1 && fields.at(-1) === 'pipe';
    if (pipe) fields.pop();
    const [root, flags = '', level = '', ...extra] = fields;
    if (!root || extra.length > 0) throw usage;
    return { name: match[1], root, flags: flags.split(' ').filter(Boolean), level: level || 'info', pipe };
  });
  if (variants.length < 2) throw new Error('usage: node bench/ab.mjs <name>=<root>[;<node flags>][;<log level>][;pipe] ... (two or more)');
  return variants;
}

/**
 * Starts one variant's gateway on core 0, its standard output to `<name>.log` in `dir` or to a FIFO read by `cat`
 * on core 1, and takes a token for it. `configure(level)` rewrites its gateway.yaml with another log level (a
 * reload, SIGHUP, applies it).
 */
export async function startVariant(variant, dir, upstreamPort) {
  const port = await freePort();
  const config = join(dir, `${variant.name}.yaml`);
  const yamlOf = (logLevel) => benchGatewayYaml({ port, accountsFile: join(dir, 'accounts.yaml'), logLevel, upstreamPort, policiesFolder: join(dir, 'policies') });
  await writeFile(config, yamlOf(variant.level));
  let consumer;
  let log;
  const logFile = variant.pipe ? undefined : join(dir, `${variant.name}.log`);
  if (variant.pipe) {
    const fifo = join(dir, `${variant.name}.fifo`);
    execFileSync('mkfifo', [fifo]);
    consumer = startPinned(`${variant.name}-cat`, '1', 'cat', [fifo]);
    // Read-write: the open does not wait for cat, and the descriptor stays blocking (as in protected-call.mjs).
    log = openSync(fifo, fsConstants.O_RDWR);
  } else log = openSync(logFile, 'a');
  // The build's own shipped flags first, then the variant's: of two values for one flag node takes the last.
  const args = [...(await shippedNodeFlags(variant.root)), ...variant.flags, join(variant.root, 'dist', 'cli', 'main.js'), 'serve', '--config', config];
  console.log(`${variant.name}: node ${args.join(' ')}, log ${variant.level}${variant.pipe ? ' to a pipe' : ''}`);
  const server = startPinned(variant.name, '0', 'node', args, { stdout: log });
  closeSync(log);
  await waitForPort(server, port, 30_000);
  const url = `http://127.0.0.1:${port}`;
  const configure = (level) => writeFile(config, yamlOf(level));
  return { ...variant, server, consumer, logFile, configure, url: `${url}${PATH}`, token: await passwordGrant(url, BENCH_ACCOUNT), runs: [] };
}

export const drive = (gateway, durationS) =>
  runWrk({ url: gateway.url, headers: { Authorization: `Bearer ${gateway.token}` }, connections: 50, durationS, cores: '1', serverPgid: gateway.server.pid, serverCore: '0' });

/** CPU ticks (user + system) of a process's main thread and of its other threads together. */
function threadTicks(pid) {
  const ticks = { main: 0, others: 0 };
  for (const { tid, ticks: used } of threadCpuTicks(pid)) {
    if (tid === pid) ticks.main += used;
    else ticks.others += used;
  }
  return ticks;
}

/** Freezes every gateway, then warms each up alone: 6 s of load, thawed only for it. */
export async function warmUp(gateways) {
  for (const gateway of gateways) gateway.server.freeze();
  for (const gateway of gateways) await gateway.server.alone(() => drive(gateway, 6));
}

/** The gateways in a pass's order: each pass starts one further on, so each runs first in turn (the cyclic order stays). */
export const inTurn = (gateways, pass) => gateways.map((_, i) => gateways[(i + pass) % gateways.length]);

export const median = (values) => percentile([...values].sort((a, b) => a - b), 50);

export async function ab(args) {
  const variants = variantsOf(args);
  const bench = await openBench('tg-bench-ab-');
  const gateways = [];
  try {
    for (const variant of variants) gateways.push(await startVariant(variant, bench.dir, bench.upstreamPort));
    await warmUp(gateways);
    for (let pass = 0; pass < PASSES; pass++) {
      for (const gateway of inTurn(gateways, pass)) {
        const run = await gateway.server.alone(() => measureRun(gateway, DURATION_S));
        gateway.runs.push(run);
        console.log(`pass ${pass + 1} ${gateway.name}: ${runLine(run)}`);
      }
    }
    for (const { name, runs } of gateways) {
      const figures = (key) => runs.map((run) => run[key]);
      console.log(
        `${name}: median ${Math.round(median(figures('rps')))} req/s, ${median(figures('cpuUsPerRequest')).toFixed(1)} µs/req ` +
          `(main thread ${median(figures('mainUs')).toFixed(1)}, other threads ${median(figures('otherThreadsUs')).toFixed(1)}), ` +
          `p99 ${median(figures('p99Ms'))} ms, p99.9 ${median(figures('p999Ms'))} ms (passes: ${figures('p999Ms').join(', ')}), max ${Math.max(...figures('maxMs'))} ms`,
      );
    }
  } finally {
    for (const gateway of gateways) await gateway.server.stop();
    // After the servers, so that none is left writing into a pipe nobody reads.
    for (const gateway of gateways) await gateway.consumer?.stop();
    await bench.close();
  }
}

/**
 * A temp dir with what every variant shares: the nginx upstream on core 1, the bench accounts and
 * protected-call.mjs's policies. `close()` stops the upstream and removes the dir (BENCH_AB_KEEP=1 keeps it).
 */
export async function openBench(prefix) {
  const dir = await mkdtemp(join(os.tmpdir(), prefix));
  const upstreamPort = await freePort();
  await writeFile(join(dir, 'upstream.conf'), upstreamConfig(dir, 'upstream', upstreamPort));
  const upstream = startPinned('upstream', '1', 'nginx', nginxArgs(dir, join(dir, 'upstream.conf'), 'upstream'));
  const close = async () => {
    await upstream.stop();
    if (KEEP) console.log(`kept: ${dir} (<variant>.log is each file variant's standard output)`);
    else await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(upstream, upstreamPort);
    await writeBenchAccounts(join(dir, 'accounts.yaml'));
    await mkdir(join(dir, 'policies'));
    await writeFile(join(dir, 'policies', 'bench.yaml'), POLICIES);
  } catch (error) {
    await close();
    throw error;
  }
  return { dir, upstreamPort, close };
}

/**
 * One measured run of a thawed gateway: `rewarmS` of unmeasured load (0: none), then `durationS` measured, with its
 * CPU per request split into the main thread's and the other threads'. Throws on any non-2xx answer or socket error.
 */
export async function measureRun(gateway, durationS, rewarmS = 2) {
  if (rewarmS > 0) await drive(gateway, rewarmS);
  const before = threadTicks(gateway.server.pid);
  const measured = await drive(gateway, durationS);
  const after = threadTicks(gateway.server.pid);
  const usPerRequest = (ticks) => (ticks * 1e6) / CLOCK_TICKS_PER_SECOND / measured.requests;
  const run = { ...measured, mainUs: usPerRequest(after.main - before.main), otherThreadsUs: usPerRequest(after.others - before.others) };
  if (run.non2xx > 0 || run.socketErrors > 0) throw new Error(`${gateway.name}: ${run.non2xx} non-2xx, ${run.socketErrors} socket errors`);
  // The gateway holds its FIFO open for reading too, so a reader that died would only show as lines dropped.
  if (gateway.consumer?.exited) throw new Error(`${gateway.name}: the log pipe's reader (cat) exited`);
  return run;
}

/** A run's figures on one line. */
export function runLine(run) {
  const others = `${Math.round(run.othersShare * 100)}% others on core 0`;
  const threads = `main thread ${run.mainUs.toFixed(1)} + other threads ${run.otherThreadsUs.toFixed(1)} µs/req`;
  return `${Math.round(run.rps)} req/s, ${run.cpuUsPerRequest.toFixed(1)} µs/req (${threads}), p99 ${run.p99Ms} ms, p99.9 ${run.p999Ms} ms, ${others}`;
}

if (isMainScript(import.meta.url)) {
  try {
    await ab(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`ab: ${error.message}\n`);
    process.exitCode = 1;
  }
}
