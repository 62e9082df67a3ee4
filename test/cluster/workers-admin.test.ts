import { request } from 'node:http';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCall } from '../helpers/admin.js';
import { GatewayProcess } from '../helpers/gateway-process.js';
import { issueTokens } from '../helpers/gateway.js';
import { scrape, type Scrape } from '../helpers/metrics.js';
import { RedisServer } from '../helpers/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { uniqueEnvironment } from '../helpers/redis-store.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';
import { childrenOf } from '../helpers/processes.js';

const PROTECTED = '/business/score/v2/';

/** A protected call on a connection of its own, so that the cluster hands it to the next worker. */
function callOnNewConnection(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${PROTECTED}directors`, { agent: false, headers: { authorization: `Bearer ${token}`, connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The kids of the JWKS, fetched on a connection of its own so that either worker may answer. */
function jwksOnNewConnection(url: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/oauth2/v1/keys`, { agent: false, headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve((JSON.parse(body) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid)));
    });
    req.on('error', reject);
    req.end();
  });
}

interface ClusterReadiness {
  status: string;
  workers: Array<{ pid: number; status: string; checks?: { store: string; keys: string } }>;
}

const readiness = async (adminUrl: string): Promise<{ status: number; body: ClusterReadiness }> => {
  const response = await fetch(`${adminUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as ClusterReadiness };
};

/** `workers: 2` on a real redis-server: the primary's admin listener answers for both workers over node:cluster's IPC. */
describe('the admin listener with workers: 2', () => {
  let redis: RedisServer;
  let upstream: TestUpstream;
  let gateway: GatewayProcess;
  beforeAll(async () => {
    redis = await RedisServer.start();
    upstream = await startUpstream();
    gateway = await GatewayProcess.start({
      workers: 2,
      environment: uniqueEnvironment(),
      store: { redis: { url: redis.url, command_timeout: '300ms' } },
      routes: [{ path: PROTECTED, upstream: upstream.url, timeout: '2s' }],
    });
    await eventually(async () => (await readiness(gateway.adminUrl)).status === 200, { timeoutMs: 15_000 });
  });
  afterAll(async () => {
    await gateway?.stop();
    await upstream?.close();
    await redis?.dispose();
  });

  it('is opened by the primary alone', async () => {
    const opened = gateway.lines.filter((line) => line.msg === 'admin listening');
    expect(opened.map((line) => [line.pid, line.adminUrl])).toEqual([[gateway.pid, gateway.adminUrl]]);
    // Ready over IPC can come before a worker's batched log line (written within 100 ms): wait for both lines.
    await eventually(() => gateway.lines.filter((line) => line.msg === 'token-gateway listening').length === 2);
    const workers = gateway.lines.filter((line) => line.msg === 'token-gateway listening');
    expect(workers.length).toBe(2);
    for (const line of workers) expect(line.adminUrl).toBeUndefined();
  });

  it('answers /readyz for every worker, listing each by pid with its checks', async () => {
    const { status, body } = await readiness(gateway.adminUrl);
    expect(status).toBe(200);
    expect(body.status).toBe('ready');
    expect(body.workers.map((worker) => worker.pid).sort()).toEqual(childrenOf(gateway.pid).sort());
    for (const worker of body.workers) expect(worker).toMatchObject({ status: 'ready', checks: { store: 'up', keys: 'loaded' } });
    expect((await fetch(`${gateway.adminUrl}/livez`)).status).toBe(200);
  });

  it('sums in /metrics the requests that both workers served', async () => {
    const tokens = await issueTokens(gateway.url);
    const calls = 12;
    const statuses = await Promise.all(Array.from({ length: calls }, () => callOnNewConnection(gateway.url, tokens.access_token)));
    expect(statuses).toEqual(Array(calls).fill(200));
    // Access lines (flushed within 100 ms) carry the pid of the worker that served each call: both did.
    const servedBy = () => gateway.lines.filter((line) => line.msg === 'request' && line.route === PROTECTED).map((line) => line.pid);
    await eventually(() => servedBy().length === calls);
    expect(new Set(servedBy()).size).toBe(2);

    const served = { route: PROTECTED, method: 'GET', status: '200' };
    let cluster: Scrape | undefined;
    await eventually(async () => (cluster = await scrape(gateway.adminUrl)).value('token_gateway_requests_total', served) === calls);
    expect(cluster!.value('token_gateway_upstream_duration_seconds_count', { route: PROTECTED })).toBe(calls);
    expect(cluster!.value('token_gateway_tokens_issued_total', { grant_type: 'password' })).toBe(1);
    expect(cluster!.value('token_gateway_workers')).toBe(2);
    expect(cluster!.value('token_gateway_workers_reporting')).toBe(2);
    expect(cluster!.value('token_gateway_store_up')).toBe(1);
  });

  it('turns /readyz degraded (still 200) when redis is killed, and ready again once every worker has it back', async () => {
    await redis.kill();
    await eventually(async () => (await readiness(gateway.adminUrl)).body.status === 'degraded');
    const { status, body } = await readiness(gateway.adminUrl);
    expect(status).toBe(200);
    expect(body.workers.some((worker) => worker.status === 'degraded' && worker.checks?.store.startsWith('down: '))).toBe(true);
    expect((await scrape(gateway.adminUrl)).value('token_gateway_store_up')).toBe(0);

    await redis.launch();
    await eventually(async () => (await readiness(gateway.adminUrl)).body.status === 'ready', { timeoutMs: 15_000 });
    expect((await scrape(gateway.adminUrl)).value('token_gateway_store_up')).toBe(1);
  });

  it('has each admin operation run by a worker: the grants it lists and a key rotation every worker then serves', async () => {
    const { access_token } = await issueTokens(gateway.url);
    const grants = await adminCall(gateway.adminUrl, 'GET', '/admin/v1/grants', { username: 'alice' });
    expect(grants.status).toBe(200);
    expect(grants.body.total).toBeGreaterThanOrEqual(1);

    // The emergency form, so that the new key signs at once (a plain rotation waits until the next key is old enough).
    const rotated = await adminCall(gateway.adminUrl, 'POST', '/admin/v1/keys/rotate', { immediate: true });
    expect(rotated.status).toBe(200);
    // Each worker is an instance of its own: the answer waited for both to install the new ring.
    expect(rotated.body.confirmed).toHaveLength(2);
    const jwks = await Promise.all(Array.from({ length: 6 }, () => jwksOnNewConnection(gateway.url)));
    for (const kids of jwks) expect(kids).toContain(rotated.body.kid);
    expect(decodeProtectedHeader((await issueTokens(gateway.url)).access_token).kid).toBe(rotated.body.kid);
    // Tokens signed before the rotation still verify.
    expect(await callOnNewConnection(gateway.url, access_token)).toBe(200);
    // Counted once, by the worker that ran it.
    expect((await scrape(gateway.adminUrl)).value('token_gateway_key_rotations_total', { trigger: 'admin' })).toBe(1);
  });

  it('answers unknown paths with 404 and other methods with 405, as a single gateway does', async () => {
    expect((await fetch(`${gateway.adminUrl}/admin/v1/nothing`)).status).toBe(404);
    const response = await fetch(`${gateway.adminUrl}/metrics`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });
});
