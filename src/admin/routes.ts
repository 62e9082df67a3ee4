import { LIVENESS_PATH, READINESS_PATH } from '../config/paths.js';
import type { GatewayContext } from '../context.js';
import { sendLiveness, sendReadiness } from '../telemetry/health.js';
import type { AdminAccess } from './access.js';
import { metricsRoute } from './metrics-route.js';
import type { AdminOperation } from './operation.js';
import { operationRoute } from './operation-route.js';
import { grantsOperation } from './operations/list-grants.js';
import { revocationsOperation } from './operations/kill-switch.js';
import { rotateKeysOperation } from './operations/rotate-keys.js';
import type { AdminRoute } from './server.js';

/** Every admin API operation; a cluster primary publishes the same list and hands each call to a worker. */
export const ADMIN_OPERATIONS: readonly AdminOperation[] = [rotateKeysOperation, revocationsOperation, grantsOperation];

export const PROBE_METHODS: readonly string[] = ['GET', 'HEAD'];

/**
 * The paths of one gateway's admin listener: the probes and /metrics (open),
 * and the admin API (behind the access rule). Operations get the context in
 * force when they run, never one kept from start: a reload replaces it.
 */
export function gatewayAdminRoutes(current: () => GatewayContext, access: AdminAccess): Map<string, AdminRoute> {
  const routes = new Map<string, AdminRoute>([
    [LIVENESS_PATH, { methods: PROBE_METHODS, handle: async (_req, res) => sendLiveness(res) }],
    [READINESS_PATH, { methods: PROBE_METHODS, handle: async (_req, res) => sendReadiness(res, current()) }],
    ['/metrics', metricsRoute(() => current().metrics.exposition())],
  ]);
  for (const operation of ADMIN_OPERATIONS) routes.set(operation.path, operationRoute(operation, access, (op, input) => op.run(current(), input)));
  return routes;
}
