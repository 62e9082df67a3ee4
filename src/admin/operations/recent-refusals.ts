import type { RefusalRecord } from '../../telemetry/recent-refusals.js';
import { RECENT_REFUSALS } from '../../telemetry/recent-refusals.js';
import { answering, boundedCount, isoTime, refuseUnknownFields } from '../input.js';
import type { AdminOperation, AdminResult, WorkerResult } from '../operation.js';

interface RefusalEntry {
  at: string;
  route: string;
  policy: string;
  kind: string;
  mode: string;
  status: number;
  errorCode: string;
  clientId: string | null;
  clientAddress: string;
  requestId: string;
  pid: number;
}

/**
 * GET /admin/v1/refusals/recent?limit=N: the latest policy verdicts against
 * requests, newest first: refusals (`mode: enforce`) and what report-only
 * policies would have refused (`mode: report`), at most 100 per process, kept
 * in memory (a restart forgets them). Only what the access log would show: the
 * route, the policy, the client id of an authenticated client or the address;
 * never a token, a secret, a header, a body or the query.
 */
export const recentRefusalsOperation: AdminOperation = {
  path: '/admin/v1/refusals/recent',
  method: 'GET',
  run: (ctx, input) =>
    answering(async () => {
      refuseUnknownFields(input, ['limit']);
      const limit = boundedCount(input, 'limit', { fallback: RECENT_REFUSALS, max: RECENT_REFUSALS });
      return { status: 200, body: { limit, refusals: ctx.refusals.newest(limit).map(asJson) } };
    }),
  combine: (answers) => merged(answers),
};

const asJson = (record: RefusalRecord): RefusalEntry => ({
  at: isoTime(record.at),
  route: record.route,
  policy: record.policy,
  kind: record.kind,
  mode: record.mode,
  status: record.status,
  errorCode: record.errorCode,
  clientId: record.clientId ?? null,
  clientAddress: record.clientAddress,
  requestId: record.requestId,
  pid: process.pid,
});

/** Every worker's latest, newest first, as many as asked. */
function merged(answers: readonly WorkerResult[]): AdminResult {
  const refused = answers.find(({ result }) => result !== undefined && result.status !== 200)?.result;
  if (refused) return refused;
  const bodies = answers.flatMap(({ result }) => (result ? [result.body as { limit: number; refusals: RefusalEntry[] }] : []));
  if (bodies.length === 0) return { status: 503, body: { error: 'no worker answered in time; retry in a moment' } };
  const limit = bodies[0]?.limit ?? RECENT_REFUSALS;
  const refusals = bodies
    .flatMap((body) => body.refusals)
    .sort((a, b) => b.at.localeCompare(a.at))
    .slice(0, limit);
  return { status: 200, body: { limit, refusals, workersReporting: bodies.length, workers: answers.length } };
}
