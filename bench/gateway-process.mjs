// A gateway process for the benchmarks: `token-gateway serve` with the forwarding engine named on the command line.
//   node bench/gateway-process.mjs <gateway.yaml> [engine] [gc-file]
// engine: `default` (what the gateway ships with) or the name of a module in bench/engines/ exporting
// `createForwarder(options)`. Prints the same "token-gateway listening" log line as `serve`.
// gc-file: where to keep the process's garbage-collection totals (gcTotals below), for protected-call.mjs to tell a
// process slowed by its collector from one slowed by the VM.
import { renameSync, writeFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { loadGatewayConfig, startGateway } from '../dist/index.js';

const [configFile, engine = 'default', gcFile] = process.argv.slice(2);
if (!configFile) {
  process.stderr.write('usage: node bench/gateway-process.mjs <gateway.yaml> [engine] [gc-file]\n');
  process.exit(2);
}
if (gcFile) keepGcTotals(gcFile);
const createForwarder = engine === 'default' ? undefined : (await import(`./engines/${engine}.mjs`)).createForwarder;
const config = await loadGatewayConfig(configFile);
const gateway = await startGateway({ config, createForwarder, watchPolicies: false });
const stop = () => gateway.close().then(() => process.exit(0), () => process.exit(1));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

/**
 * Keeps the process's collections so far in `file` as JSON, `{ scavenges, scavengeMs, majors, majorMs }` (majors:
 * mark-compact and its incremental steps), rewritten every GC_TOTALS_EVERY_MS while they change. Read from a file
 * rather than asked for: a frozen process (SIGSTOP) cannot answer, and a reader a run apart gets totals at most that
 * old. The figures are node's own (`gc` performance entries), not a trace's: --trace-gc-nvp would write into the
 * access log this process's standard output carries.
 */
function keepGcTotals(file) {
  const GC_TOTALS_EVERY_MS = 100;
  const totals = { scavenges: 0, scavengeMs: 0, majors: 0, majorMs: 0 };
  let written = -1;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = entry.detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        totals.scavenges++;
        totals.scavengeMs += entry.duration;
      } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR || kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL) {
        totals.majors++;
        totals.majorMs += entry.duration;
      }
    }
  }).observe({ entryTypes: ['gc'] });
  const write = () => {
    const count = totals.scavenges + totals.majors;
    if (count === written) return;
    written = count;
    // Written beside it and renamed over it: a reader never sees the file truncated and half written (a benchmark
    // run once read it empty).
    writeFileSync(`${file}.next`, JSON.stringify(totals));
    renameSync(`${file}.next`, file);
  };
  write();
  setInterval(write, GC_TOTALS_EVERY_MS).unref();
}
