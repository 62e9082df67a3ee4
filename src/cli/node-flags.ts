/**
 * The Node.js flags that every launch of the gateway this project ships
 * carries: the installed binary's first line (`src/cli/main.ts`), `npm start`
 * (package.json) and the container's entry point (Dockerfile). The
 * benchmarks start the gateway with them too, so that what they measure is
 * what runs. A test holds the three launchers to this list.
 *
 * `--v8-pool-size=2`: two helper threads for V8 (its garbage collector's
 * parallel and concurrent work, its optimising compiler) instead of node's
 * fixed four. On a process that has one core (a `taskset`, a one-CPU cpuset,
 * Kubernetes' static CPU manager), a garbage collection's pause waits for
 * helper tasks that share that core with the event loop, and with four
 * threads in the scheduler's turn the wait was most of the gateway's p99.9.
 * Measured on one pinned core, three `bench/ab.mjs` runs, seven processes
 * each way: p99.9 medians of 9.5 to 26.6 ms (median 11.6) against 14.1 to
 * 34.2 ms (25.8) with four threads, every process lower than its pair, at
 * the same CPU per call (docs/performance.md, "Two helper threads"). Two,
 * not one: on a host with cores to spare the collector still works in
 * parallel, and one measured no better than two on one core.
 *
 * A flag on node's command line wins over the same flag in NODE_OPTIONS: to
 * run with another pool size, start `node --v8-pool-size=N dist/cli/main.js`
 * yourself (docs/deployment.md, "CPU").
 */
export const NODE_FLAGS: readonly string[] = ['--v8-pool-size=2'];
