import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminAccess } from '../../src/admin/access.js';
import type { AdminOperation } from '../../src/admin/operation.js';
import { startAdminServer, type AdminServer } from '../../src/admin/server.js';
import { answerPrimary, type PrimaryLink } from '../../src/cluster/answers.js';
import { clusterAdminRoutes } from '../../src/cluster/primary-admin.js';
import { WorkerQuestions, type WorkerLink } from '../../src/cluster/questions.js';
import type { GatewayContext } from '../../src/context.js';
import { bootGateway, callProtected, issueTokens, type TestGateway } from '../helpers/gateway.js';
import { scrape, scrapeCounted } from '../helpers/metrics.js';
import { eventually } from '../helpers/eventually.js';

/**
 * The cluster primary's admin listener, in one process: the routes and the
 * worker's answering code are production's (clusterAdminRoutes,
 * answerPrimary), two in-process gateways play the workers, and only the
 * transport is swapped for an in-memory one with IPC's manners (asynchronous,
 * JSON-copied). test/ops/workers-admin.test.ts runs the same over node:cluster.
 */

/** An operation table of the test's own: one that echoes what reached it, one that fails (the real ones run over node:cluster in workers-admin.test.ts). */
const ECHO: AdminOperation = { path: '/admin/v1/test/echo', method: 'POST', run: async (ctx, input) => ({ status: 201, body: { input, issuer: ctx.issuer } }) };
const LOOKUP: AdminOperation = { path: '/admin/v1/test/lookup', method: 'GET', run: async (_ctx, input) => ({ status: 200, body: { found: input.name ?? null } }) };
const BROKEN: AdminOperation = {
  path: '/admin/v1/test/broken',
  method: 'POST',
  run: async () => {
    throw new Error('operation failed');
  },
};
const OPERATIONS = [ECHO, LOOKUP, BROKEN];
const TIMEOUTS = { readinessMs: 300, metricsMs: 1_000, operationMs: 300 };
const LOOPBACK: AdminAccess = { token: undefined, loopback: true };

const ipcCopy = (message: unknown): unknown => JSON.parse(JSON.stringify(message));

/** A worker reachable over an in-memory channel; `answering: false` makes one that receives and never replies. */
function connectWorker(questions: WorkerQuestions, pid: number, ctx: GatewayContext | undefined, listening?: boolean): WorkerLink & { disconnect(): void; asked: number } {
  const listeners: Array<(message: unknown) => void> = [];
  let connected = true;
  const toPrimary: PrimaryLink = {
    onMessage: (listener) => void listeners.push(listener),
    send: (message) => void setImmediate(() => questions.receive(ipcCopy(message))),
  };
  if (ctx) answerPrimary(() => ctx, toPrimary, OPERATIONS);
  const link = {
    pid,
    asked: 0,
    isConnected: () => connected,
    send: (message: Parameters<WorkerLink['send']>[0], failed: () => void) => {
      link.asked++;
      if (!connected) return failed();
      setImmediate(() => listeners.forEach((listener) => listener(ipcCopy(message))));
    },
    disconnect: () => (connected = false),
    ...(listening === undefined ? {} : { isListening: () => listening }),
  };
  return link;
}

/** One protected call, returned once the gateway has counted it (a request is counted when its response is over). */
async function protectedCallCounted(tg: TestGateway, labels: Record<string, string>): Promise<void> {
  const counted = async () => (await scrape(tg.gateway.adminUrl!)).value('token_gateway_requests_total', labels);
  const before = await counted();
  const { access_token } = await issueTokens(tg.url);
  expect((await callProtected(tg.url, access_token)).status).toBe(200);
  await eventually(async () => (await counted()) === before + 1);
}

describe('the cluster admin listener', () => {
  let first: TestGateway;
  let second: TestGateway;
  let workers: WorkerLink[] = [];
  let questions: WorkerQuestions;
  let admin: AdminServer;
  const errors: unknown[] = [];
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${admin.url}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

  beforeAll(async () => {
    [first, second] = await Promise.all([bootGateway(), bootGateway()]);
    questions = new WorkerQuestions(() => workers);
    admin = await startAdminServer(clusterAdminRoutes(questions, LOOPBACK, OPERATIONS, TIMEOUTS), '127.0.0.1', 0, (error) => errors.push(error));
  });
  afterAll(async () => {
    await admin?.close();
    await Promise.all([first?.close(), second?.close()]);
  });
  const useWorkers = (...links: WorkerLink[]) => (workers = links);

  describe('admin operations', () => {
    it('hands a POST operation with its JSON body to a worker, which runs it with its own context', async () => {
      useWorkers(connectWorker(questions, 101, first.gateway.context));
      const response = await post(ECHO.path, { user: 'alice', all: true });
      expect(response.status).toBe(201);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toEqual({ input: { user: 'alice', all: true }, issuer: first.gateway.context.issuer });
    });

    it('hands a GET operation its query', async () => {
      useWorkers(connectWorker(questions, 101, first.gateway.context));
      const response = await fetch(`${admin.url}${LOOKUP.path}?name=alice`);
      expect({ status: response.status, body: await response.json() }).toEqual({ status: 200, body: { found: 'alice' } });
    });

    it('spreads operations over the live workers, skipping a disconnected one', async () => {
      const gone = connectWorker(questions, 100, second.gateway.context);
      gone.disconnect();
      useWorkers(gone, connectWorker(questions, 101, first.gateway.context), connectWorker(questions, 102, second.gateway.context));
      const issuers = new Set<string>();
      for (let i = 0; i < 4; i++) issuers.add(((await (await post(ECHO.path, {})).json()) as { issuer: string }).issuer);
      expect(issuers).toEqual(new Set([first.gateway.context.issuer, second.gateway.context.issuer]));
    });

    it("answers a worker's failure with 500 and logs it in the worker", async () => {
      useWorkers(connectWorker(questions, 101, first.gateway.context));
      const response = await post(BROKEN.path, {});
      expect({ status: response.status, body: await response.json() }).toEqual({ status: 500, body: { error: 'unexpected failure; see the gateway log' } });
      expect(first.logs.some((line) => line.msg === 'admin request failed' && line.path === BROKEN.path)).toBe(true);
    });

    it('answers 503 when no worker is running', async () => {
      useWorkers();
      const response = await post(ECHO.path, {});
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ error: 'no worker is running to perform the operation; retry in a moment' });
    });

    it('answers 503 when the worker does not answer in time, saying the operation may have run', async () => {
      useWorkers(connectWorker(questions, 103, undefined));
      const response = await post(ECHO.path, {});
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: string }).error).toBe(
        'worker 103 did not answer within 300 ms; the operation may have run, so check before retrying',
      );
    });

    it("applies the admin access rule itself: a worker is never asked on a caller's behalf without the token", async () => {
      const guarded = await startAdminServer(
        clusterAdminRoutes(questions, { token: 'a-long-enough-admin-token', loopback: false }, OPERATIONS, TIMEOUTS),
        '127.0.0.1',
        0,
        (error) => errors.push(error),
      );
      try {
        useWorkers(connectWorker(questions, 101, first.gateway.context));
        const call = (headers: Record<string, string>) => fetch(`${guarded.url}${ECHO.path}`, { method: 'POST', body: '{}', headers });
        expect((await call({})).status).toBe(401);
        expect((await call({ authorization: 'Bearer wrong-token-of-some-length' })).status).toBe(401);
        expect((await call({ authorization: 'Bearer a-long-enough-admin-token' })).status).toBe(201);
      } finally {
        await guarded.close();
      }
    });
  });

  describe('/readyz', () => {
    interface ClusterReadiness {
      status: string;
      workers: Array<{ pid: number; status: string; checks?: unknown; reason?: string }>;
    }
    const readiness = async () => {
      const response = await fetch(`${admin.url}/readyz`);
      return { status: response.status, body: (await response.json()) as ClusterReadiness };
    };

    it('is ready when every live worker is, and lists each with its checks', async () => {
      useWorkers(connectWorker(questions, 101, first.gateway.context), connectWorker(questions, 102, second.gateway.context));
      const checks = { store: 'up', keys: 'loaded' };
      expect(await readiness()).toEqual({
        status: 200,
        body: { status: 'ready', workers: [{ pid: 101, status: 'ready', checks }, { pid: 102, status: 'ready', checks }] },
      });
    });

    it('is not ready while one worker is silent', async () => {
      useWorkers(connectWorker(questions, 101, first.gateway.context), connectWorker(questions, 103, undefined));
      const { status, body } = await readiness();
      expect(status).toBe(503);
      expect(body.status).toBe('not-ready');
      expect(body.workers[1]).toEqual({ pid: 103, status: 'silent', reason: 'no answer within 300 ms' });
    });

    it('says draining while a worker shuts down', async () => {
      const draining: GatewayContext = { ...second.gateway.context, shutdown: { draining: true, graceOver: false } };
      useWorkers(connectWorker(questions, 101, first.gateway.context), connectWorker(questions, 102, draining));
      const { status, body } = await readiness();
      expect(status).toBe(503);
      expect(body.status).toBe('draining');
      expect(body.workers.map((worker: { status: string }) => worker.status)).toEqual(['ready', 'draining']);
    });

    it('is degraded, still 200, while a worker serves protected calls without its store', async () => {
      // Readiness reads the store's health and whether it holds the whole revocation list.
      const away = { health: () => ({ ready: false, reason: 'redis is reconnecting' }), revocations: { loaded: true } } as unknown as GatewayContext['store'];
      const degraded: GatewayContext = { ...second.gateway.context, store: away };
      useWorkers(connectWorker(questions, 101, first.gateway.context), connectWorker(questions, 102, degraded));
      const { status, body } = await readiness();
      expect(status).toBe(200);
      expect(body.status).toBe('degraded');
      expect(body.workers[1]).toEqual({ pid: 102, status: 'degraded', checks: { store: 'down: redis is reconnecting', keys: 'loaded' } });
    });

    it('lists a worker that does not listen yet as starting, without asking it or waiting for it: it gets no connection', async () => {
      const starting = connectWorker(questions, 104, undefined, false);
      useWorkers(connectWorker(questions, 101, first.gateway.context, true), starting);
      const startedAt = Date.now();
      const { status, body } = await readiness();
      expect(Date.now() - startedAt).toBeLessThan(TIMEOUTS.readinessMs);
      expect(status).toBe(200);
      expect(body).toEqual({
        status: 'ready',
        workers: [
          { pid: 101, status: 'ready', checks: { store: 'up', keys: 'loaded' } },
          { pid: 104, status: 'starting', reason: 'not listening until its store and keys are loaded' },
        ],
      });
      expect(starting.asked).toBe(0);
    });

    it('is not ready while no worker listens yet', async () => {
      useWorkers(connectWorker(questions, 104, undefined, false));
      expect(await readiness()).toMatchObject({ status: 503, body: { status: 'not-ready', workers: [{ pid: 104, status: 'starting' }] } });
    });

    it('is not ready with no worker at all', async () => {
      useWorkers();
      expect(await readiness()).toEqual({ status: 503, body: { status: 'not-ready', workers: [] } });
    });

    it('is live whatever the workers say', async () => {
      useWorkers();
      expect((await fetch(`${admin.url}/livez`)).status).toBe(200);
    });
  });

  describe('/metrics', () => {
    it("sums the workers' counters and says how many workers it covers", async () => {
      useWorkers(connectWorker(questions, 101, first.gateway.context), connectWorker(questions, 102, second.gateway.context), connectWorker(questions, 103, undefined));
      const route = { route: '/business/score/v2/', method: 'GET', status: '200' };
      // The only client requests these two gateways get: a password grant each, then two and three protected calls.
      const [one, two] = await Promise.all([issueTokens(first.url), issueTokens(second.url)]);
      for (let i = 0; i < 2; i++) expect((await callProtected(first.url, one.access_token)).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await callProtected(second.url, two.access_token)).status).toBe(200);
      await Promise.all([scrapeCounted(first.gateway.adminUrl!, 3), scrapeCounted(second.gateway.adminUrl!, 4)]);

      const response = await fetch(`${admin.url}/metrics`);
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const cluster = await scrape(admin.url);
      expect(cluster.value('token_gateway_requests_total', route)).toBe(5);
      expect(cluster.value('token_gateway_tokens_issued_total', { grant_type: 'password' })).toBe(2);
      expect(cluster.value('token_gateway_workers')).toBe(3);
      expect(cluster.value('token_gateway_workers_reporting')).toBe(2);
      // Gauges are combined, not summed: both stores up is 1, the key count is one ring's.
      expect(cluster.value('token_gateway_store_up')).toBe(1);
      expect(cluster.value('token_gateway_signing_keys')).toBe(2);
      expect(cluster.typeOf('token_gateway_request_duration_seconds')).toBe('histogram');
      expect(cluster.value('token_gateway_request_duration_seconds_count', { route: '/business/score/v2/' })).toBe(5);
      expect(errors).toEqual([]);
    });

    it("never lets a summed counter go down: a silent worker counts with its last report, one that is gone with its final one", async () => {
      // A listener of its own: what the primary remembers of its workers starts empty.
      const own = await startAdminServer(clusterAdminRoutes(questions, LOOPBACK, OPERATIONS, TIMEOUTS), '127.0.0.1', 0, (error) => errors.push(error));
      try {
        const route = { route: '/business/score/v2/', method: 'GET', status: '200' };
        const requests = async () => (await scrape(own.url)).value('token_gateway_requests_total', route);
        const seconds = async () => (await scrape(own.url)).value('token_gateway_request_duration_seconds_count', { route: '/business/score/v2/' });
        await protectedCallCounted(second, route);
        useWorkers(connectWorker(questions, 101, first.gateway.context), connectWorker(questions, 102, second.gateway.context));
        const before = await requests();
        const histogramBefore = await seconds();

        // Worker 102 misses the scrape's deadline: a drop here would read as a counter reset, and rate() as a burst.
        useWorkers(connectWorker(questions, 101, first.gateway.context), connectWorker(questions, 102, undefined));
        expect(await requests()).toBe(before);
        expect(await seconds()).toBe(histogramBefore);

        // Worker 102 exits and is replaced by 104, which starts from nothing.
        useWorkers(connectWorker(questions, 101, first.gateway.context), connectWorker(questions, 104, undefined));
        expect(await requests()).toBe(before);
        expect(await seconds()).toBe(histogramBefore);

        // What the remaining worker counts afterwards adds up on top.
        await protectedCallCounted(first, route);
        expect(await requests()).toBe(before + 1);
        // Gauges are the reporting workers' only: the gone worker's store is not taken for down or up.
        expect((await scrape(own.url)).value('token_gateway_store_up')).toBe(1);
        expect(errors).toEqual([]);
      } finally {
        await own.close();
      }
    });
  });
});
