// What the access line costs inside one process. protected-call.mjs reads the line's cost from two rows, the
// gateway at `info` and at `warn`, which are different processes; on these VMs two processes of one build can differ
// by about 1.2x in CPU per call for their whole life (docs/performance.md, "Identical processes, different speeds"),
// which is more than the 10% the goal allows the line. Here each of BENCH_LINE_PROCESSES gateway processes (this
// checkout's build, as shipped: protected-call.mjs's full pipeline, standard output to a file) is measured at both
// levels in every pass, switched by rewriting its gateway.yaml and a reload (SIGHUP), the order of the two levels
// alternating from pass to pass; the ratios are taken within a process and a pass, then their median and range.
// A run at `info` must have written about a line per request to the file, a run at `warn` none: otherwise the
// switch did not take and the benchmark stops.
//
//   npm run build && node bench/line-cost.mjs
//
// Bounded: processes x (6 s warm-up + BENCH_LINE_PASSES x 2 x (0.5 + 1 + 2 + BENCH_LINE_DURATION) s), about 4.5 minutes
// by default.
import { statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { drive, measureRun, median, openBench, runLine, startVariant } from './ab.mjs';
import { knob, machineLine, writeResult } from './lib.mjs';

const PROCESSES = knob('BENCH_LINE_PROCESSES', 3);
const PASSES = knob('BENCH_LINE_PASSES', 4);
const DURATION_S = knob('BENCH_LINE_DURATION', 5);
const LEVELS = ['info', 'warn'];
// An access line is about 280 bytes: a run at info writes well over 100 per request; a run at warn at most the
// batches left over from the run before it (64 KiB each, at most 100 ms late) and the reload's own lines.
const INFO_BYTES_PER_REQUEST = 100;
const WARN_BYTES_AT_MOST = 1024 * 1024;

/** Switches a thawed gateway's log level: gateway.yaml rewritten, then SIGHUP (the run's 2 s of load cover the reload). */
async function switchLevel(gateway, level) {
  await gateway.configure(level);
  gateway.server.signal('SIGHUP');
}

/** One measured run at `level`, checked against what reached the log file. */
async function runAt(gateway, level) {
  await switchLevel(gateway, level);
  // The reload is done well within measureRun's 2 s of unmeasured load; the file's size is read around both.
  await drive(gateway, 1);
  const sizeBefore = statSync(gateway.logFile).size;
  const run = await measureRun(gateway, DURATION_S);
  const written = statSync(gateway.logFile).size - sizeBefore;
  const took = level === 'info' ? written >= INFO_BYTES_PER_REQUEST * run.requests : written <= WARN_BYTES_AT_MOST;
  if (!took) throw new Error(`${gateway.name}: the switch to ${level} did not take (${written} bytes logged for ${run.requests} requests)`);
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
      gateways.push(await startVariant({ name: `gateway#${i}`, root: process.cwd(), flags: [], level: 'info', pipe: false }, bench.dir, bench.upstreamPort));
    }
    for (const gateway of gateways) gateway.server.freeze();
    for (const gateway of gateways) await gateway.server.alone(() => drive(gateway, 6));
    for (let pass = 0; pass < PASSES; pass++) {
      const order = pass % 2 === 0 ? LEVELS : [...LEVELS].reverse();
      for (const gateway of gateways.map((_, i) => gateways[(i + pass) % gateways.length])) {
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
levels alternating from pass to pass. CPU per request: the whole process, main
thread + other threads, µs. "others": the share of core 0 other processes took, the mean of the two runs.

| pass | process | info req/s | warn req/s | req/s info ÷ warn | info CPU µs/req | warn CPU µs/req | CPU info ÷ warn | others |
|---:|---|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

| goal | figure | target | result |
|---|---:|---:|---|
| access line cost: req/s info ÷ warn, same process | ${fixed(rpsRatio)} (${rangeOf(rpsRatios)}) | >= 0.9 | ${rpsRatio >= 0.9 ? 'met' : `**not met** (${fixed(rpsRatio)})`} |

CPU per request info ÷ warn: ${fixed(median(cpuRatios))} (${rangeOf(cpuRatios)}); the line's CPU per request,
info − warn: ${median(cpuDeltas).toFixed(1)} µs (${Math.min(...cpuDeltas).toFixed(1)} to ${Math.max(...cpuDeltas).toFixed(1)}).
`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { markdown, file } = await lineCost();
  process.stdout.write(`${markdown}\nwritten to ${file}\n`);
}
