import cluster from 'node:cluster';
import { ConfigError, formatIssue, StartupError } from '../config/errors.js';
import { loadGatewayConfig } from '../config/load.js';
import { startGateway, type RunningGateway } from '../gateway.js';
import { createLogger } from '../log/logger.js';
import { answerPrimary } from '../ops/cluster/answers.js';
import { startClusterAdmin } from '../ops/cluster/primary-admin.js';
import { resolveWorkerCount, superviseWorkers } from './cluster.js';
import { EXIT, type CommandIo } from './io.js';

export interface ServeOptions {
  configFile: string;
  port?: number;
}

/**
 * Starts the gateway and stops it gracefully on SIGTERM or SIGINT. Returns
 * once it is listening; with `workers` above one, this process supervises
 * the workers instead and returns their exit code when they have stopped.
 */
export async function serveCommand(options: ServeOptions, io: CommandIo): Promise<number | RunningGateway> {
  let gateway: RunningGateway;
  try {
    const config = await loadGatewayConfig(options.configFile, { port: options.port });
    const workers = resolveWorkerCount(config.workers);
    if (workers > 1 && cluster.isPrimary) {
      const serveArgs = ['--config', options.configFile, ...(options.port === undefined ? [] : ['--port', String(options.port)])];
      const logger = createLogger(config.log.level);
      // The primary alone opens the admin listener and answers it for every worker.
      const admin = await startClusterAdmin(config, logger);
      return await superviseWorkers(workers, serveArgs, logger).finally(() => admin.close());
    }
    gateway = await startGateway({ config, admin: !cluster.isWorker });
    if (cluster.isWorker) answerPrimary(gateway.context);
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
  }
  const stop = () => {
    gateway.context.logger.info('shutting down');
    gateway.close().then(
      () => process.exit(EXIT.ok),
      () => process.exit(EXIT.invalid),
    );
  };
  // SIGHUP: re-read the policies folder (the watcher normally does; this is for tooling that signals).
  process.on('SIGHUP', () => void gateway.reloadPolicies('SIGHUP'));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return gateway;
}
