import cluster, { type Worker } from 'node:cluster';
import type { ServerResponse } from 'node:http';
import { AggregatorRegistry, Gauge, Registry } from 'prom-client';
import type { GatewayConfig } from '../config/schema.js';
import { ReloadableAdminAccess } from '../admin/access.js';
import { sendJsonText } from '../http/respond.js';
import type { Logger } from '../log/logger.js';
import type { AdminAccess } from '../admin/access.js';
import { LIVENESS_PATH, READINESS_PATH } from '../config/paths.js';
import type { AdminOperation, AdminResult } from '../admin/operation.js';
import { operationRoute } from '../admin/operation-route.js';
import { opsPageRoutes } from '../admin/ops-page/route.js';
import { ADMIN_OPERATIONS, PROBE_METHODS } from '../admin/routes.js';
import { startAdminServer, type AdminRoute, type AdminServer } from '../admin/server.js';
import { clusterReadinessOf, sendLiveness } from '../telemetry/health.js';
import { metricsRoute } from '../admin/metrics-route.js';
import type { Exposition } from '../telemetry/metrics.js';
import { CumulativeReports } from './cumulative.js';
import { WorkerQuestions, type WorkerLink } from './questions.js';

/** How long the primary waits for workers. */
export interface ClusterTimeouts {
  /** Under a Kubernetes probe's default 1 s: a worker answers from memory, so one that takes longer is not serving either. */
  readonly readinessMs: number;
  /** Well under Prometheus's default 10 s scrape timeout. */
  readonly metricsMs: number;
  /**
   * Operations may write to the store, and a kill switch over a large client revokes grant after grant: as long as
   * the CLI waits (300 s), so that a slow operation is not answered "may have run" while it still runs. A worker that
   * dies meanwhile is noticed at once (WorkerQuestions.ask).
   */
  readonly operationMs: number;
}

const TIMEOUTS: ClusterTimeouts = { readinessMs: 500, metricsMs: 2_000, operationMs: 295_000 };

const NO_STORE = { 'Cache-Control': 'no-store' };

/**
 * The admin listener of `workers: N`, opened by the primary alone: were each
 * worker to open it, they would share the port and every scrape or probe
 * would see one worker picked at random. The primary serves nothing else, so
 * it asks its workers over IPC and answers for all of them.
 */
export async function startClusterAdmin(config: GatewayConfig, logger: Logger): Promise<AdminServer> {
  // Workers that listen, i.e. that node:cluster hands connections to: a worker listens only once it is ready.
  const listening = new Set<number>();
  cluster.on('listening', (worker) => listening.add(worker.id));
  cluster.on('exit', (worker) => listening.delete(worker.id));
  const questions = new WorkerQuestions(() => Object.values(cluster.workers ?? {}).flatMap((worker) => (worker ? [linkOf(worker, listening)] : [])));
  cluster.on('message', (_worker, message) => questions.receive(message));
  const access = await ReloadableAdminAccess.load(config);
  // The primary's own SIGHUP (it also passes the signal on to the workers): a new admin token takes effect without a restart.
  process.on('SIGHUP', () => void access.reload('SIGHUP', logger));
  const routes = clusterAdminRoutes(questions, access);
  const { host, port } = config.admin;
  const admin = await startAdminServer(routes, host, port, (error) => logger.error({ err: error }, 'admin request failed'));
  logger.info({ adminUrl: admin.url }, 'admin listening');
  return admin;
}

/** The same paths as a single gateway's admin listener, answered for the whole cluster. */
export function clusterAdminRoutes(
  questions: WorkerQuestions,
  access: AdminAccess,
  operations: readonly AdminOperation[] = ADMIN_OPERATIONS,
  timeouts: ClusterTimeouts = TIMEOUTS,
): Map<string, AdminRoute> {
  const reports = new CumulativeReports();
  const routes = new Map<string, AdminRoute>([
    // The primary itself is alive: it is what restarts workers.
    [LIVENESS_PATH, { methods: PROBE_METHODS, handle: async (_req, res) => sendLiveness(res) }],
    [READINESS_PATH, { methods: PROBE_METHODS, handle: async (_req, res) => sendClusterReadiness(res, questions, timeouts.readinessMs) }],
    ['/metrics', metricsRoute(() => clusterExposition(questions, reports, timeouts.metricsMs))],
  ]);
  const runner = (operation: AdminOperation, input: Record<string, unknown>) =>
    operation.combine ? runOnEveryWorker(questions, operation, input, timeouts.metricsMs) : runOnAWorker(questions, operation, input, timeouts.operationMs);
  for (const operation of operations) routes.set(operation.path, operationRoute(operation, access, runner));
  // The page is the primary's own: it holds no data, and the reads it makes are gathered from every worker.
  for (const [path, route] of opsPageRoutes(access)) routes.set(path, route);
  return routes;
}

/**
 * The cluster's readiness (clusterReadinessOf): 200 while every worker that
 * gets connections serves (`ready`, or `degraded` while Redis is away), and at
 * least one does; a silent one does not. A worker that does not listen yet
 * gets no connection: it is listed as `starting` without being asked, and
 * does not hold the others back (a replacement starting beside them). Workers
 * shutting down make the whole answer `draining`, as a single gateway's would
 * be. The body lists each worker.
 */
async function sendClusterReadiness(res: ServerResponse, questions: WorkerQuestions, timeoutMs: number): Promise<void> {
  const starting = questions.starting().map(({ pid }) => ({ pid, status: 'starting', reason: 'not listening until its store and keys are loaded' }));
  const answers = await questions.askEach({ kind: 'readiness' }, timeoutMs);
  const receiving = answers.map(({ pid, answer }) =>
    answer ? { pid, status: answer.status, checks: answer.checks } : { pid, status: 'silent', reason: `no answer within ${timeoutMs} ms` },
  );
  const workers = [...receiving, ...starting];
  const { ready, status } = clusterReadinessOf(workers.map((worker) => worker.status));
  sendJsonText(res, ready ? 200 : 503, JSON.stringify({ status, workers }), NO_STORE);
}

/**
 * Every worker's registry, summed (counters, histograms) or combined as
 * each gauge says (min for up/ready, max for sizes) by prom-client's
 * AggregatorRegistry, plus two gauges of the primary's that say how many
 * workers the figures cover. A worker that does not answer in time does not
 * fail the scrape: its gauges are left out, its counters and histograms count
 * as it last reported them (CumulativeReports), so that no sum goes down.
 */
async function clusterExposition(questions: WorkerQuestions, reports: CumulativeReports, timeoutMs: number): Promise<Exposition> {
  const answers = await questions.askEach({ kind: 'metrics' }, timeoutMs);
  const reported = answers.flatMap(({ answer }) => (answer ? [answer] : []));
  const own = new Registry();
  // Workers still starting (not listening yet) run, but have served nothing to report.
  new Gauge({ name: 'token_gateway_workers', help: 'Worker processes running (cluster mode).', registers: [own] }).set(answers.length + questions.starting().length);
  new Gauge({
    name: 'token_gateway_workers_reporting',
    help: 'Workers whose metrics this scrape includes; fewer than token_gateway_workers when some did not answer in time or are still starting (not listening yet).',
    registers: [own],
  }).set(reported.length);
  const aggregated = AggregatorRegistry.aggregate([...(await reports.reportsFor(answers)), await own.getMetricsAsJSON()]);
  return { contentType: aggregated.contentType, text: await aggregated.metrics() };
}

async function runOnAWorker(questions: WorkerQuestions, operation: AdminOperation, input: Record<string, unknown>, timeoutMs: number): Promise<AdminResult> {
  const worker = questions.pick();
  if (!worker) return { status: 503, body: { error: 'no worker is running to perform the operation; retry in a moment' } };
  const result = await questions.ask(worker, { kind: 'operation', path: operation.path, input }, timeoutMs);
  return (
    result ?? {
      status: 503,
      body: { error: `worker ${worker.pid ?? '?'} did not answer within ${timeoutMs} ms; the operation may have run, so check before retrying` },
    }
  );
}

/**
 * A read whose answer is per process (counters, recent refusals, process state): every worker is asked at once and
 * the operation merges what came back in time, as a scrape does; a silent worker is left out (and said to be).
 */
async function runOnEveryWorker(questions: WorkerQuestions, operation: AdminOperation, input: Record<string, unknown>, timeoutMs: number): Promise<AdminResult> {
  const answers = await questions.askEach({ kind: 'operation', path: operation.path, input }, timeoutMs);
  if (answers.length === 0) return { status: 503, body: { error: 'no worker is running to answer; retry in a moment' } };
  return operation.combine!(answers.map(({ pid, answer }) => ({ pid, result: answer })), input);
}

function linkOf(worker: Worker, listening: ReadonlySet<number>): WorkerLink {
  return {
    pid: worker.process.pid,
    isConnected: () => worker.isConnected(),
    isListening: () => listening.has(worker.id),
    // With a callback, a closed channel is reported to it instead of as an 'error' event that would end the primary.
    send: (message, failed) => void worker.send(message, (error) => error && failed()),
  };
}
