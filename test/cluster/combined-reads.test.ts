import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminAccess } from '../../src/admin/access.js';
import { startAdminServer, type AdminServer } from '../../src/admin/server.js';
import { answerPrimary, type PrimaryLink } from '../../src/cluster/answers.js';
import { clusterAdminRoutes } from '../../src/cluster/primary-admin.js';
import { WorkerQuestions, type WorkerLink } from '../../src/cluster/questions.js';
import type { GatewayContext } from '../../src/context.js';
import { adminCall } from '../helpers/admin.js';
import { bootGateway, issueTokens, type TestGateway } from '../helpers/gateway.js';
import { scrapeCounted } from '../helpers/metrics.js';

/**
 * The reads whose answer is each process's own (policy figures, recent
 * refusals, traffic, status), behind a cluster primary: every worker is asked
 * and the answers merged. Two in-process gateways play the workers over an
 * in-memory channel with IPC's manners (as primary-admin.test.ts does).
 */

const TIMEOUTS = { readinessMs: 300, metricsMs: 500, operationMs: 500 };
const LOOPBACK: AdminAccess = { token: undefined, loopback: true };
const ipcCopy = (message: unknown): unknown => JSON.parse(JSON.stringify(message));

function connectWorker(questions: WorkerQuestions, pid: number, ctx: GatewayContext | undefined): WorkerLink {
  const listeners: Array<(message: unknown) => void> = [];
  const toPrimary: PrimaryLink = {
    onMessage: (listener) => void listeners.push(listener),
    send: (message) => void setImmediate(() => questions.receive(ipcCopy(message))),
  };
  if (ctx) answerPrimary(() => ctx, toPrimary);
  return { pid, isConnected: () => true, send: (message) => void setImmediate(() => listeners.forEach((listener) => listener(ipcCopy(message)))) };
}

const POLICIES = { main: { policies: [{ name: 'guard', kind: 'regex-protection', builtin: [], patterns: [{ name: 'blocked-word', pattern: 'blocked' }] }] } };

describe('reads the cluster primary gathers from every worker', () => {
  let first: TestGateway;
  let second: TestGateway;
  let workers: WorkerLink[] = [];
  let admin: AdminServer;
  const read = (path: string) => adminCall(admin.url, 'GET', path);

  beforeAll(async () => {
    const config = (upstream: string) => ({ routes: [{ path: '/business/score/v2/', upstream, policies: ['guard'] }] });
    [first, second] = await Promise.all([bootGateway({ policies: POLICIES, config }), bootGateway({ policies: POLICIES, config })]);
    const questions = new WorkerQuestions(() => workers);
    workers = [connectWorker(questions, 101, first.gateway.context), connectWorker(questions, 102, second.gateway.context)];
    admin = await startAdminServer(clusterAdminRoutes(questions, LOOPBACK, undefined, TIMEOUTS), '127.0.0.1', 0, () => undefined);
    for (const [tg, calls] of [[first, 1], [second, 2]] as const) {
      const { access_token } = await issueTokens(tg.url);
      for (let i = 0; i < calls; i++) await fetch(`${tg.url}/business/score/v2/x?w=blocked`, { headers: { authorization: `Bearer ${access_token}` } });
      await scrapeCounted(tg.gateway.adminUrl!, 1 + calls);
    }
  });
  afterAll(async () => {
    await admin.close();
    await Promise.all([first.close(), second.close()]);
  });

  it('sums every worker\'s policy figures', async () => {
    const { status, body } = await read('/admin/v1/policies');
    expect(status).toBe(200);
    expect(body.policies).toEqual([expect.objectContaining({ name: 'guard', evaluations: 3, refusals: 3 })]);
    expect(body).toMatchObject({ workers: 2, workersReporting: 2 });
  });

  it('merges every worker\'s recent refusals, newest first', async () => {
    const { body } = await read('/admin/v1/refusals/recent');
    expect(body.refusals).toHaveLength(3);
    const times = body.refusals.map((refusal: { at: string }) => refusal.at);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('sums the traffic of each route', async () => {
    const { body } = await read('/admin/v1/traffic');
    expect(body.routes).toContainEqual({ route: '/business/score/v2/', requests: 3, refused: 3, failed: 0 });
    expect(body.routes).toContainEqual({ route: '/oauth2/v1/token', requests: 2, refused: 0, failed: 0 });
  });

  it('lists each worker in the status, a silent one as silent and the whole as not ready', async () => {
    expect((await read('/admin/v1/status')).body).toMatchObject({ readiness: 'ready', workers: { running: 2, reporting: 2 } });
    workers = [...workers, connectWorker(new WorkerQuestions(() => []), 103, undefined)];
    const { body } = await read('/admin/v1/status');
    expect(body).toMatchObject({ readiness: 'not-ready', workers: { running: 3, reporting: 2 } });
    expect(body.processes.map((entry: { status: string }) => entry.status)).toEqual(['ready', 'ready', 'silent']);
    workers = workers.slice(0, 2);
  });
});
