import cluster from 'node:cluster';
import { ConfigError, formatIssue, StartupError } from '../../config/errors.js';
import { loadGatewayConfig } from '../../config/load.js';
import { startGateway, type RunningGateway } from '../../lifecycle/start.js';
import { standardOutputDrained } from '../../log/destination.js';
import { createLogger } from '../../log/logger.js';
import { answerPrimary } from '../../cluster/answers.js';
import { startClusterAdmin } from '../../cluster/primary-admin.js';
import { resolveWorkerCount, superviseWorkers } from '../../cluster/supervise.js';
import { holdHangups, releaseHangups } from '../held-hangups.js';
import { EXIT, type CommandIo } from '../io.js';

/** After the drain, how long a log reader that is behind may take the last lines before the exit writes the rest. */
const LOG_DRAIN_MS = 2_000;

export const SERVE_USAGE = `usage: token-gateway serve [--config FILE] [--port N]
  Runs the gateway until SIGTERM or SIGINT (a graceful stop); SIGHUP reloads the config, accounts, policies and TLS files.
  --config FILE   the gateway's config (default ./gateway.yaml)
  --port N        the client listener's port instead of listen.port, a whole number from 0 to 65535 (0: one chosen at start)`;

export interface ServeOptions {
  configFile: string;
  port?: number;
}

/**
 * Starts the gateway and stops it gracefully on SIGTERM or SIGINT (a second
 * one cuts the requests still in flight), reloads on SIGHUP. Returns
 * once it is listening; with `workers` above one, this process supervises
 * the workers instead and returns their exit code when they have stopped.
 */
export async function serveCommand(options: ServeOptions, io: CommandIo): Promise<number | RunningGateway> {
  // A SIGHUP before the handlers below are wired is held, and the reload done once the gateway runs.
  holdHangups();
  let hangupDuringStart = false;
  let gateway: RunningGateway;
  try {
    const config = await loadGatewayConfig(options.configFile, { port: options.port });
    const workers = resolveWorkerCount(config.workers);
    if (workers > 1 && cluster.isPrimary) {
      const serveArgs = ['--config', options.configFile, ...(options.port === undefined ? [] : ['--port', String(options.port)])];
      const logger = createLogger(config.log.level);
      // The primary alone opens the admin listener and answers it for every worker.
      const admin = await startClusterAdmin(config, logger);
      // The workers forked next read the files afresh; from now on SIGHUP is passed on to them.
      releaseHangups();
      return await superviseWorkers(workers, serveArgs, logger).finally(() => admin.close());
    }
    // A worker listens only once ready: node:cluster hands out connections without asking its readiness.
    gateway = await startGateway({ config, configOverrides: { port: options.port }, admin: !cluster.isWorker, listenWhenReady: cluster.isWorker });
    const running = gateway;
    // The context in force when the primary asks, not the one of start-up: a reload replaces it.
    if (cluster.isWorker) answerPrimary(() => running.context);
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const issue of error.issues) io.stderr.write(`${formatIssue(issue)}\n`);
      return EXIT.invalid;
    }
    if (error instanceof StartupError) {
      io.stderr.write(`token-gateway serve: ${error.message}\n`);
      return EXIT.invalid;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      io.stderr.write(`token-gateway serve: cannot listen: ${(error as Error).message}\n`);
      return EXIT.invalid;
    }
    throw error;
  } finally {
    hangupDuringStart = releaseHangups();
  }
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    const { logger } = gateway.context;
    // A second signal during the grace is someone who will not wait: cut what is in flight and finish the stop now.
    if (stopping) {
      logger.warn({ signal }, 'second signal: ending the shutdown grace now');
      gateway.endGrace();
      return;
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    gateway
      .close()
      // A log reader that is behind gets a moment to take the last lines in order; the exit writes what is left.
      .then(() => standardOutputDrained(LOG_DRAIN_MS))
      .then(
        () => process.exit(EXIT.ok),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(EXIT.invalid);
        },
      );
  };
  // SIGHUP: re-read gateway.yaml, accounts.yaml, the policies folder and the TLS files (the watchers normally do;
  // this is for tooling that signals, and for mounts without inotify).
  process.on('SIGHUP', () => void gateway.reload('SIGHUP'));
  if (hangupDuringStart) void gateway.reload('SIGHUP');
  process.on('SIGTERM', stop);
  // A worker hears of Ctrl-C from its primary, as SIGTERM: the terminal's SIGINT to the whole process group
  // would otherwise reach it twice and cut its grace short.
  process.on('SIGINT', cluster.isWorker ? () => undefined : stop);
  return gateway;
}
