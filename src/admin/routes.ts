import { LIVENESS_PATH, READINESS_PATH } from '../config/paths.js';
import type { GatewayContext } from '../context.js';
import { sendLiveness, sendReadiness } from '../telemetry/health.js';
import type { AdminAccess } from './access.js';
import { metricsRoute } from './metrics-route.js';
import type { AdminOperation } from './operation.js';
import { operationRoute } from './operation-route.js';
import { opsPageRoutes } from './ops-page/route.js';
import { statusOperation } from './operations/gateway-status.js';
import { revocationsOperation } from './operations/kill-switch.js';
import { grantsOperation } from './operations/list-grants.js';
import { keysOperation } from './operations/list-keys.js';
import { policiesOperation } from './operations/list-policies.js';
import { recentRefusalsOperation } from './operations/recent-refusals.js';
import { rotateKeysOperation } from './operations/rotate-keys.js';
import { trafficOperation } from './operations/route-traffic.js';
import type { AdminRoute } from './server.js';

/**
 * Every admin API operation; a cluster primary publishes the same list and hands each call to a worker (the reads
 * that say `combine`, to every worker). The CLI and the operations page read the same ones.
 */
export const ADMIN_OPERATIONS: readonly AdminOperation[] = [
  rotateKeysOperation,
  revocationsOperation,
  grantsOperation,
  keysOperation,
  policiesOperation,
  recentRefusalsOperation,
  trafficOperation,
  statusOperation,
];

export const PROBE_METHODS: readonly string[] = ['GET', 'HEAD'];

/**
 * The paths of one gateway's admin listener: the probes and /metrics (open),
 * the admin API (behind the access rule) and the operations page that reads it. Operations get the context in
 * force when they run, never one kept from start: a reload replaces it.
 */
export function gatewayAdminRoutes(current: () => GatewayContext, access: AdminAccess): Map<string, AdminRoute> {
  const routes = new Map<string, AdminRoute>([
    [LIVENESS_PATH, { methods: PROBE_METHODS, handle: async (_req, res) => sendLiveness(res) }],
    [READINESS_PATH, { methods: PROBE_METHODS, handle: async (_req, res) => sendReadiness(res, current()) }],
    ['/metrics', metricsRoute(() => current().metrics.exposition())],
  ]);
  for (const operation of ADMIN_OPERATIONS) routes.set(operation.path, operationRoute(operation, access, (op, input) => op.run(current(), input)));
  for (const [path, route] of opsPageRoutes(access)) routes.set(path, route);
  return routes;
}
