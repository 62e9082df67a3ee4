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
 * With two, on one pinned core, the p99.9 was about half, every process
 * lower than its pair, at the same CPU per call; unpinned on two cores, no
 * different (docs/performance.md, "Two helper threads", has the runs). Two,
 * not one: one measured no better on one core, and two leave the collector
 * some parallelism on a host with cores to spare.
 *
 * `--no-allocation-site-pretenuring`: V8 allocates no object straight into
 * its old generation because earlier objects from the same line of code
 * tended to survive. In the JIT's warm-up, while requests are slow, one of
 * the request path's sites can cross that bar; from then on each request's
 * object from it is born old, dies with the request, and keeps the young
 * objects it points at alive until the next full collection, so the process
 * stays slow until it exits. The site found was node's listener arrays, and
 * a response now carries one `close` listener (ResponseClosed in
 * pipeline/request-handler.ts); the flag stays for the paths that still make
 * such arrays. The figures are in the README ("Performance as shipped") and
 * docs/performance.md ("The slow process: V8's pretenuring").
 *
 * A flag on node's command line wins over the same flag in NODE_OPTIONS (and
 * node refuses this V8 flag in NODE_OPTIONS anyway): to run with other
 * flags, start `node --v8-pool-size=N --no-allocation-site-pretenuring
 * dist/cli/main.js serve ...` yourself, leaving out what you do not want
 * (docs/deployment.md, "CPU").
 */
export const NODE_FLAGS: readonly string[] = ['--v8-pool-size=2', '--no-allocation-site-pretenuring'];
