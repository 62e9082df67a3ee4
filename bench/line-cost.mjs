// What the access line costs inside one process. protected-call.mjs reads the line's cost from two rows, the
// gateway at `info` and at `warn`, which are different processes; on these VMs two processes of one build can differ
// by about 1.2x in CPU per call for their whole life (docs/performance.md, "Identical processes, different speeds"),
// which is more than the 10% the goal allows the line. Here each of BENCH_LINE_PROCESSES gateway processes (this
// checkout's build, as shipped: protected-call.mjs's full pipeline, standard output to a file) is measured at both
// levels in every pass, switched by rewriting its gateway.yaml and a reload (SIGHUP), the order of the two levels
// alternating from pass to pass; the ratios are taken within a process and a pass, then their median and range.
// Every process is started and warmed up at `info`. A measured run at `info` must have written an access line for at
// least 98% of its requests to the file, a run at `warn` none: otherwise the switch did not take and the benchmark
// stops.
//
//   npm run build && node bench/line-cost.mjs
//
// Bounded: processes x (6.5 s of warm-up + BENCH_LINE_PASSES x (0.5 + 2 x (3.3 + BENCH_LINE_DURATION)) s), about 3.7
// minutes by default, plus start-up. BENCH_AB_KEEP=1 keeps the temp dir (each process's log), as for ab.mjs.
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { drive, inTurn, measureRun, median, openBench, runLine, startVariant, warmUp } from './ab.mjs';
import { BENCH_NODE_FLAGS, knob, machineLine, REPO_DIR, writeResult, isMainScript, runBenchmark } from './lib.mjs';
import { countLines, LOG_LINES_AT_LEAST, LOG_SETTLE_MS, LOGGED_LATENCY } from './protected-call.mjs';

const PROCESSES = knob('BENCH_LINE_PROCESSES', 3, { whole: true });
const PASSES = knob('BENCH_LINE_PASSES', 4, { whole: true });
const DURATION_S = knob('BENCH_LINE_DURATION', 5);
const LEVELS = ['info', 'warn'];
/** Switches a thawed gateway's log level: gateway.yaml rewritten, then SIGHUP. */
async function switchLevel(gateway, level) {
  await gateway.configure(level);
  gateway.server.signal('SIGHUP');
}

/** Access lines in a file from byte `offset` on: the lines that carry a request's latency, as protected-call.mjs reads them. */
async function accessLinesFrom(file, offset) {
  const { latencies } = await countLines(file, offset, LOGGED_LATENCY.gateway);
  return latencies.length;
}

/**
 * One measured run at `level`: the switch, 3 s of unmeasured load (the reload takes well under a second), then the
 * measured run, checked against the access lines that reached the file during it.
 */
async function runAt(gateway, level) {
  await switchLevel(gateway, level);
  await drive(gateway, 3);
  const offset = statSync(gateway.logFile).size;
  const run = await measureRun(gateway, DURATION_S, 0);
  await sleep(LOG_SETTLE_MS);
  const lines = await accessLinesFrom(gateway.logFile, offset);
  const took = level === 'info' ? lines >= LOG_LINES_AT_LEAST * run.requests : lines === 0;
  if (!took) throw new Error(`${gateway.name}: the switch to ${level} did not take (${lines} access lines for ${run.requests} requests)`);
  return { ...run, level };
}

const fixed = (n) => n.toFixed(2);
const rangeOf = (values) => `${fixed(Math.min(...values))}-${fixed(Math.max(...values))}`;

export async function lineCost() {
  const started = Date.now();
  const bench = await openBench('tg-bench-line-');
  const gateways = [];
  const pairs = [];
  try {
    for (let i = 1; i <= PROCESSES; i++) {
      gateways.push(await startVariant({ name: `gateway#${i}`, root: REPO_DIR, flags: BENCH_NODE_FLAGS, level: 'info', pipe: false }, bench.dir, bench.upstreamPort));
    }
    await warmUp(gateways);
    for (let pass = 0; pass < PASSES; pass++) {
      const order = pass % 2 === 0 ? LEVELS : [...LEVELS].reverse();
      for (const gateway of inTurn(gateways, pass)) {
        const runs = await gateway.server.alone(async () => {
          const byLevel = {};
          for (const level of order) byLevel[level] = await runAt(gateway, level);
          return byLevel;
        });
        const pair = { process: gateway.name, pass: pass + 1, info: runs.info, warn: runs.warn };
        pairs.push(pair);
        for (const level of order) console.log(`pass ${pass + 1} ${gateway.name} ${level}: ${runLine(runs[level])}`);
      }
    }
  } finally {
    for (const gateway of gateways) await gateway.server.stop();
    await bench.close();
  }
  const markdown = `${report(pairs)}\nWhole benchmark: ${Math.round((Date.now() - started) / 1000)} s.\n`;
  return { markdown, file: await writeResult('line-cost', markdown) };
}

function report(pairs) {
  const rpsRatios = pairs.map((p) => p.info.rps / p.warn.rps);
  const cpuRatios = pairs.map((p) => p.info.cpuUsPerRequest / p.warn.cpuUsPerRequest);
  const cpuDeltas = pairs.map((p) => p.info.cpuUsPerRequest - p.warn.cpuUsPerRequest);
  const rpsRatio = median(rpsRatios);
  const rows = pairs.map(
    (p) =>
      `| ${p.pass} | ${p.process} | ${Math.round(p.info.rps)} | ${Math.round(p.warn.rps)} | ${fixed(p.info.rps / p.warn.rps)} | ` +
      `${p.info.cpuUsPerRequest.toFixed(1)} (${p.info.mainUs.toFixed(1)} + ${p.info.otherThreadsUs.toFixed(1)}) | ` +
      `${p.warn.cpuUsPerRequest.toFixed(1)} (${p.warn.mainUs.toFixed(1)} + ${p.warn.otherThreadsUs.toFixed(1)}) | ` +
      `${fixed(p.info.cpuUsPerRequest / p.warn.cpuUsPerRequest)} | ${Math.round((p.info.othersShare + p.warn.othersShare) * 50)}% |`,
  );
  return `# The access line's cost within one process

${machineLine()}

${PROCESSES} processes of the gateway as shipped (protected-call.mjs's full pipeline, log to a file), each measured
at \`log.level: info\` and at \`warn\` in every pass (${PASSES} passes, ${DURATION_S} s each after 3 s of unmeasured
load), the level switched by a reload just before it; ratios within one process and pass, the order of the two
levels alternating from pass to pass. Every process was started and warmed up at \`info\`. Medians of an even count
are the lower of the two middle values. CPU per request: the whole process, main
thread + other threads, µs. "others": the share of core 0 other processes took, the mean of the two runs.

| pass | process | info req/s | warn req/s | req/s info ÷ warn | info CPU µs/req | warn CPU µs/req | CPU info ÷ warn | others |
|---:|---|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

| goal | figure | target | result |
|---|---:|---:|---|
| access line cost: req/s info ÷ warn, same process | ${rpsRatio.toFixed(3)} (${rangeOf(rpsRatios)}) | >= 0.9 | ${rpsRatio >= 0.9 ? 'met' : `**not met** (${rpsRatio.toFixed(3)})`} |

CPU per request info ÷ warn: ${fixed(median(cpuRatios))} (${rangeOf(cpuRatios)}); the line's CPU per request,
info − warn: ${median(cpuDeltas).toFixed(1)} µs (${Math.min(...cpuDeltas).toFixed(1)} to ${Math.max(...cpuDeltas).toFixed(1)}).
`;
}

if (isMainScript(import.meta.url)) await runBenchmark(lineCost);
