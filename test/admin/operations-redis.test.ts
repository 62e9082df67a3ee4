import { decodeProtectedHeader } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminCall } from '../helpers/admin.js';
import { APP, OTHER_APP, OTHER_USER, USER } from '../helpers/accounts.js';
import { callProtected, errorOf, issueTokens, refreshGrant, untilDegraded } from '../helpers/gateway.js';
import { GatewayProcess } from '../helpers/gateway-process.js';
import { RedisServer } from '../helpers/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { uniqueEnvironment } from '../helpers/redis-store.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

/**
 * Admin operations on two real gateway processes sharing one real Redis:
 * what one instance is told, every instance does.
 */

let redis: RedisServer;
let upstream: TestUpstream;
const running: GatewayProcess[] = [];
beforeAll(async () => {
  [redis, upstream] = await Promise.all([RedisServer.start(), startUpstream()]);
});
afterAll(async () => {
  await Promise.all([redis?.dispose(), upstream?.close()]);
});
afterEach(async () => {
  const stopped = running.splice(0);
  await Promise.all(stopped.map((gateway) => gateway.stop()));
  for (const gateway of stopped) expect(gateway.failures()).toEqual([]);
});

async function twoInstances(): Promise<[GatewayProcess, GatewayProcess]> {
  const environment = uniqueEnvironment();
  const start = async () => {
    const gateway = await GatewayProcess.start({
      environment,
      store: redis.url,
      issuer: 'https://api.example.com',
      routes: [{ path: '/business/score/v2/', upstream: upstream.url, timeout: '2s' }],
    });
    running.push(gateway);
    await gateway.ready();
    return gateway;
  };
  return Promise.all([start(), start()]);
}

const login = (url: string, user: { username: string; password: string }, app: { client_id: string; client_secret: string }) =>
  issueTokens(url, { username: user.username, password: user.password, ...app });

describe('admin operations on instances sharing a redis', () => {
  it('a kill switch called on one instance is honoured by the other, for access and refresh tokens', async () => {
    const [a, b] = await twoInstances();
    const alice = [await login(a.url, USER, APP), await login(a.url, USER, OTHER_APP)];
    const bob = await login(a.url, OTHER_USER, APP);
    for (const tokens of [...alice, bob]) expect((await callProtected(b.url, tokens.access_token)).status).toBe(200);

    expect(await adminCall(a.adminUrl, 'POST', '/admin/v1/revocations', { username: USER.username })).toMatchObject({ status: 200, body: { revoked: 2 } });

    for (const tokens of alice) await eventually(async () => (await callProtected(b.url, tokens.access_token)).status === 401);
    expect(await errorOf(await refreshGrant(b.url, alice[0]!.refresh_token, APP))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
    expect((await callProtected(b.url, bob.access_token)).status).toBe(200);
    expect((await refreshGrant(b.url, bob.refresh_token, APP)).status).toBe(200);
    // The other instance lists the same grants: they live in the shared store.
    const listed = await adminCall(b.adminUrl, 'GET', '/admin/v1/grants');
    expect(listed.body.grants.map((grant: { username: string }) => grant.username)).toEqual([OTHER_USER.username]);
  });

  it('an emergency rotation on one instance answers once the other has the new key: both sign with it at once, earlier tokens verify', async () => {
    const [a, b] = await twoInstances();
    const before = await login(b.url, USER, APP);

    const { status, body } = await adminCall(a.adminUrl, 'POST', '/admin/v1/keys/rotate', { immediate: true });

    expect(status).toBe(200);
    expect(body.confirmed).toHaveLength(2);
    // Not eventually: the answer waited for B's acknowledgement.
    const jwks = async (url: string) => ((await (await fetch(`${url}/oauth2/v1/keys`)).json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);
    expect(await jwks(b.url)).toEqual(body.published);
    expect(await jwks(a.url)).toEqual(body.published);
    expect(decodeProtectedHeader((await login(b.url, USER, APP)).access_token).kid).toBe(body.kid);
    for (const gateway of [a, b]) expect((await callProtected(gateway.url, before.access_token)).status).toBe(200);
  });

  it('drop_previous called on one instance: once it answers, no instance accepts or signs with a dropped key', async () => {
    const [a, b] = await twoInstances();
    const before = await login(b.url, USER, APP);

    const { body } = await adminCall(a.adminUrl, 'POST', '/admin/v1/keys/rotate', { immediate: true, drop_previous: true });

    expect(body.dropped).toContain(decodeProtectedHeader(before.access_token).kid);
    for (const gateway of [a, b]) {
      expect((await callProtected(gateway.url, before.access_token)).status).toBe(401);
      expect(body.dropped).not.toContain(decodeProtectedHeader((await login(gateway.url, USER, APP)).access_token).kid);
    }
  });
});

describe('admin operations while redis is away', () => {
  let own: RedisServer;
  beforeAll(async () => {
    own = await RedisServer.start();
  });
  afterAll(() => own?.dispose());

  it('writes and store reads answer 503 in the admin envelope with Retry-After: 1, and log the outage without a stack', async () => {
    const gateway = await GatewayProcess.start({ environment: uniqueEnvironment(), store: own.url, issuer: 'https://api.example.com' });
    running.push(gateway);
    await gateway.ready();
    await login(gateway.url, USER, APP);
    await own.stop();
    await untilDegraded(gateway.adminUrl!, 10_000);

    const calls: Array<[string, string, Record<string, unknown> | undefined]> = [
      ['POST', '/admin/v1/revocations', { username: USER.username }],
      ['POST', '/admin/v1/revocations', { client_id: APP.client_id }],
      ['GET', '/admin/v1/grants', undefined],
    ];
    for (const [method, path, input] of calls) {
      const response = await fetch(`${gateway.adminUrl}${path}`, {
        method,
        headers: input ? { 'content-type': 'application/json' } : {},
        body: input ? JSON.stringify(input) : undefined,
      });
      expect({ path, status: response.status, retryAfter: response.headers.get('retry-after') }).toEqual({ path, status: 503, retryAfter: '1' });
      expect(await response.json()).toEqual({ error: expect.stringMatching(/redis/) });
    }
    // Expected unavailability is a reason, not a stack: stacks are for unexpected failures (docs/monitoring.md).
    // Expected unavailability is a reason, not a stack: stacks are for unexpected failures (docs/monitoring.md).
    const halfWayLines = () => gateway.lines.filter((line) => line.msg === 'admin: revoking every grant stopped half-way');
    const halfWay = await eventually(() => halfWayLines().length === 2 && halfWayLines(), { what: 'both half-way lines in the log' });
    expect(halfWay).toEqual([
      expect.objectContaining({ level: 40, username: USER.username, revoked: 0, code: 'SERVICE_UNAVAILABLE', reason: expect.stringMatching(/redis/) }),
      expect.objectContaining({ level: 40, clientId: APP.client_id, revoked: 0, code: 'SERVICE_UNAVAILABLE', reason: expect.stringMatching(/redis/) }),
    ]);
    for (const line of gateway.lines.filter((line) => String(line.msg).startsWith('admin'))) expect(line).not.toHaveProperty('err');
  });
});
