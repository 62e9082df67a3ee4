import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';

/** `workers: auto` is one process per core this process may use (taskset and cgroup limits count). */
export const resolveWorkerCount = (workers: number | 'auto'): number => (workers === 'auto' ? availableParallelism() : workers);

/** A worker that dies this soon after it started is failing to start, not crashing under load: stop instead of looping. */
const START_GRACE_MS = 5_000;
const RESPAWN_DELAY_MS = 500;
/** Workers that keep dying young (killed by the OOM killer, say) are replaced ever more slowly, up to this. */
const MAX_RESPAWN_DELAY_MS = 30_000;

/**
 * The primary of `workers: N`: forks N `serve` processes that share the
 * listening socket (node:cluster hands connections out round robin) and one
 * store, so they act as N instances of one gateway. It serves nothing
 * itself; it replaces a worker that dies, passes SIGHUP on (config,
 * accounts and policies reload), and on SIGTERM or SIGINT lets every worker
 * shut down gracefully before it exits; a second signal ends their grace.
 * Its lines about a worker name it in `workerPid`: each line already carries
 * `pid`, the primary's own, and a second `pid` key would leave its reading to
 * the parser.
 */
export function superviseWorkers(count: number, serveArgs: readonly string[], logger: Logger): Promise<number> {
  cluster.setupPrimary({ exec: fileURLToPath(new URL('../cli/main.js', import.meta.url)), args: ['serve', ...serveArgs] });
  let stopping = false;
  let youngDeaths = 0;
  const respawns = new Set<NodeJS.Timeout>();
  const startedAt = new Map<Worker, number>();
  const fork = () => startedAt.set(cluster.fork(), Date.now());

  return new Promise<number>((resolve) => {
    const stop = (signal: NodeJS.Signals, exitCode = 0) => {
      if (stopping) {
        // A second signal: each worker ends its grace at once (see serve).
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
        return;
      }
      stopping = true;
      for (const respawn of respawns) clearTimeout(respawn);
      logger.info({ signal }, 'stopping workers');
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      const finish = () => {
        if (Object.keys(cluster.workers ?? {}).length === 0) resolve(exitCode);
      };
      cluster.on('exit', finish);
      finish();
    };

    cluster.on('exit', (worker, code, signal) => {
      const livedMs = Date.now() - (startedAt.get(worker) ?? 0);
      startedAt.delete(worker);
      if (stopping) return;
      if (livedMs < START_GRACE_MS && code !== 0 && signal === null) {
        logger.fatal({ workerPid: worker.process.pid, code }, 'a worker failed to start; stopping the gateway');
        // The primary ends as the worker did: `serve`'s 1 for an invalid config or secret, 1 when it gave no code.
        stop('SIGTERM', code || 1);
        return;
      }
      youngDeaths = livedMs < START_GRACE_MS ? youngDeaths + 1 : 0;
      const delayMs = Math.min(MAX_RESPAWN_DELAY_MS, RESPAWN_DELAY_MS * 2 ** youngDeaths);
      logger.error({ workerPid: worker.process.pid, code, signal, restartInMs: delayMs }, 'worker died; starting a replacement');
      // Not unref'd: with every worker dead, this timer is what keeps the primary alive to replace them.
      const respawn = setTimeout(() => {
        respawns.delete(respawn);
        fork();
      }, delayMs);
      respawns.add(respawn);
    });
    process.on('SIGHUP', () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGHUP');
    });
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));

    logger.info({ workers: count }, 'starting workers');
    for (let i = 0; i < count; i++) fork();
  });
}
