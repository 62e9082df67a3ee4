import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { EXIT } from './io.js';

/** `workers: auto` is one process per core this process may use (taskset and cgroup limits count). */
export const resolveWorkerCount = (workers: number | 'auto'): number => (workers === 'auto' ? availableParallelism() : workers);

/** A worker that dies this soon after it started is failing to start, not crashing under load: stop instead of looping. */
const START_GRACE_MS = 5_000;
const RESPAWN_DELAY_MS = 500;

/**
 * The primary of `workers: N`: forks N `serve` processes that share the
 * listening socket (node:cluster hands connections out round robin) and one
 * store, so they act as N instances of one gateway. It serves nothing
 * itself; it replaces a worker that dies, passes SIGHUP on (policies
 * reload), and on SIGTERM or SIGINT lets every worker shut down gracefully
 * before it exits.
 */
export function superviseWorkers(count: number, serveArgs: readonly string[], logger: Logger): Promise<number> {
  cluster.setupPrimary({ exec: fileURLToPath(new URL('./main.js', import.meta.url)), args: ['serve', ...serveArgs] });
  let stopping = false;
  const startedAt = new Map<Worker, number>();
  const fork = () => startedAt.set(cluster.fork(), Date.now());

  return new Promise<number>((resolve) => {
    const stop = (signal: NodeJS.Signals, exitCode: number = EXIT.ok) => {
      if (stopping) return;
      stopping = true;
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
        logger.fatal({ pid: worker.process.pid, code }, 'a worker failed to start; stopping the gateway');
        stop('SIGTERM', code || EXIT.invalid);
        return;
      }
      logger.error({ pid: worker.process.pid, code, signal }, 'worker died; starting a replacement');
      setTimeout(() => !stopping && fork(), RESPAWN_DELAY_MS).unref();
    });
    process.on('SIGHUP', () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGHUP');
    });
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));

    logger.info({ workers: count }, 'starting workers');
    for (let i = 0; i < count; i++) fork();
  });
}
