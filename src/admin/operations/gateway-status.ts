import { describeStore } from '../../config/store-schema.js';
import type { GatewayContext } from '../../context.js';
import { releaseVersion } from '../../oauth/openapi/document.js';
import { clusterReadinessOf, readinessOf } from '../../telemetry/health.js';
import { answering, isoTime, refuseUnknownFields } from '../input.js';
import type { AdminOperation, AdminResult, WorkerResult } from '../operation.js';

/** One serving process: the gateway itself, or one worker of `workers: N`. */
interface ProcessEntry {
  pid: number;
  status: string;
  checks?: { store: string; keys: string };
  startedAt?: string;
  uptimeSeconds?: number;
  residentBytes?: number;
}

interface StatusAnswer {
  version: string;
  node: string;
  environment: string | null;
  issuer: string;
  store: { kind: string; description: string; up: boolean; reason: string | null };
  readiness: string;
  policies: { count: number; reportOnly: number; routes: number };
  workers: { configured: number | 'auto'; running: number; reporting: number };
  processes: ProcessEntry[];
}

/**
 * GET /admin/v1/status: what the operations page shows in its header: the
 * release, the store (kind, where, whether it answers and why not; never a
 * password), readiness, how many policies run and how many in report mode,
 * and each serving process. With `workers` the primary asks each worker and
 * lists them all, a silent one as `silent`.
 */
export const statusOperation: AdminOperation = {
  path: '/admin/v1/status',
  method: 'GET',
  run: (ctx, input) =>
    answering(async () => {
      refuseUnknownFields(input, []);
      return { status: 200, body: statusOf(ctx) };
    }),
  combine: (answers) => combined(answers),
};

function statusOf(ctx: GatewayContext): StatusAnswer {
  const { config } = ctx;
  const health = ctx.store.health();
  const readiness = readinessOf(ctx);
  const policies = [...ctx.policies.current.policies.values()];
  const uptimeSeconds = Math.round(process.uptime());
  return {
    version: releaseVersion(),
    node: process.version,
    environment: config.environment ?? null,
    issuer: ctx.issuer,
    store: { kind: config.store.kind, description: describeStore(config.store), up: health.ready, reason: health.reason ?? null },
    readiness: readiness.status,
    policies: { count: policies.length, reportOnly: policies.filter((policy) => policy.mode === 'report').length, routes: config.routes.length },
    workers: { configured: config.workers, running: 1, reporting: 1 },
    processes: [
      {
        pid: process.pid,
        status: readiness.status,
        checks: readiness.checks,
        startedAt: isoTime(Date.now() - uptimeSeconds * 1000),
        uptimeSeconds,
        residentBytes: process.memoryUsage.rss(),
      },
    ],
  };
}

/** One answer for the cluster: each worker listed, readiness as the primary's /readyz combines it; the store as the first one sees it. */
function combined(answers: readonly WorkerResult[]): AdminResult {
  const bodies = answers.flatMap(({ result }) => (result?.status === 200 ? [result.body as StatusAnswer] : []));
  const [first] = bodies;
  if (!first) return { status: 503, body: { error: 'no worker answered in time; retry in a moment' } };
  const processes = answers.flatMap(({ pid, result }) =>
    result?.status === 200 ? (result.body as StatusAnswer).processes : [{ pid: pid ?? 0, status: 'silent' }],
  );
  const store = bodies.find((body) => !body.store.up)?.store ?? first.store;
  return {
    status: 200,
    body: {
      ...first,
      store,
      readiness: clusterReadinessOf(processes.map((entry) => entry.status)).status,
      workers: { configured: first.workers.configured, running: answers.length, reporting: bodies.length },
      processes,
    },
  };
}
