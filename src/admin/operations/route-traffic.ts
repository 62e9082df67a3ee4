import type { RouteTraffic } from '../../telemetry/metrics.js';
import { answering, isoTime, refuseUnknownFields } from '../input.js';
import type { AdminOperation, AdminResult, WorkerResult } from '../operation.js';

/**
 * GET /admin/v1/traffic: per route (and endpoint), the requests answered,
 * those the gateway refused itself (a 4xx of its own: a policy, a credential,
 * a limit) and those answered with a 5xx, since the process started: the
 * operations page takes two reads and divides by the time between them
 * (`at`), as Prometheus's rate() does with the same counters.
 */
export const trafficOperation: AdminOperation = {
  path: '/admin/v1/traffic',
  method: 'GET',
  run: (ctx, input) =>
    answering(async () => {
      refuseUnknownFields(input, []);
      return { status: 200, body: { at: isoTime(ctx.clock.now()), routes: ctx.metrics.traffic() } };
    }),
  combine: (answers) => summed(answers),
};

/** Every worker's totals added up per route; `at` is the latest worker's. */
function summed(answers: readonly WorkerResult[]): AdminResult {
  const bodies = answers.flatMap(({ result }) => (result?.status === 200 ? [result.body as { at: string; routes: RouteTraffic[] }] : []));
  if (bodies.length === 0) return { status: 503, body: { error: 'no worker answered in time; retry in a moment' } };
  const byRoute = new Map<string, { route: string; requests: number; refused: number; failed: number }>();
  for (const { routes } of bodies) {
    for (const { route, requests, refused, failed } of routes) {
      const total = byRoute.get(route);
      if (!total) byRoute.set(route, { route, requests, refused, failed });
      else {
        total.requests += requests;
        total.refused += refused;
        total.failed += failed;
      }
    }
  }
  const at = bodies.map((body) => body.at).sort().at(-1);
  return { status: 200, body: { at, routes: [...byRoute.values()], workersReporting: bodies.length, workers: answers.length } };
}
