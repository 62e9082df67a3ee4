import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminAccess } from '../../src/admin/access.js';
import type { AdminOperation } from '../../src/admin/operation.js';
import { operationRoute } from '../../src/admin/operation-route.js';
import { startAdminServer, type AdminServer } from '../../src/admin/server.js';

const TOKEN = 'a-long-enough-admin-token-0123456789';
/** An operation that answers with the input it was given, to show what reached it. */
const echo = (method: 'GET' | 'POST'): AdminOperation => ({ path: `/admin/v1/echo-${method}`, method, run: async () => ({ status: 200, body: {} }) });
const seen: Array<Record<string, unknown>> = [];

describe('an admin operation over HTTP', () => {
  const servers: Record<string, AdminServer> = {};
  const accessRules: Record<string, AdminAccess> = {
    loopback: { token: undefined, loopback: true },
    exposed: { token: undefined, loopback: false },
    token: { token: TOKEN, loopback: false },
  };
  beforeAll(async () => {
    for (const [name, access] of Object.entries(accessRules)) {
      const routes = new Map(
        (['GET', 'POST'] as const).map((method) => {
          const operation = echo(method);
          return [operation.path, operationRoute(operation, access, async (_op, input) => (seen.push(input), { status: 202, body: { input } }))] as const;
        }),
      );
      servers[name] = await startAdminServer(routes, '127.0.0.1', 0, () => undefined);
    }
  });
  afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())));

  const call = (server: string, method: 'GET' | 'POST', init: { query?: string; body?: string; authorization?: string } = {}) =>
    fetch(`${servers[server]!.url}/admin/v1/echo-${method}${init.query ?? ''}`, {
      method,
      headers: init.authorization ? { authorization: init.authorization } : {},
      body: init.body,
    });

  it('runs a GET operation with its query string as input, and answers its result as JSON, never cached', async () => {
    const response = await call('loopback', 'GET', { query: '?username=alice&limit=5' });
    expect(response.status).toBe(202);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ input: { username: 'alice', limit: '5' } });
  });

  it('runs a POST operation with its JSON object body as input; no body is an empty input', async () => {
    expect(await (await call('loopback', 'POST', { body: '{"dropPrevious":true}' })).json()).toEqual({ input: { dropPrevious: true } });
    expect(await (await call('loopback', 'POST')).json()).toEqual({ input: {} });
  });

  it.each([
    ['not JSON', '{nope', 'request body is not JSON'],
    ['an array', '[1]', 'request body must be a JSON object'],
    ['null', 'null', 'request body must be a JSON object'],
    ['over 64 KiB', JSON.stringify({ x: 'y'.repeat(70_000) }), 'request body over 65536 bytes'],
  ])('refuses a POST body that is %s with 400, without running the operation', async (_case, body, message) => {
    const before = seen.length;
    const response = await call('loopback', 'POST', { body });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain(message);
    expect(seen.length).toBe(before);
  });

  it.each([
    ['?username=demo-user&username=x', 'username'],
    ['?limit=5&username=alice&limit=6', 'limit'],
    ['?username=alice&username=alice', 'username'],
    ['?__proto__=a&__proto__=b', '__proto__'],
  ])('refuses a GET whose query gives a parameter twice (%s) with 400 naming it, without running the operation', async (query, name) => {
    const before = seen.length;
    const response = await call('loopback', 'GET', { query });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: `query parameter "${name}" given more than once; give each parameter once` });
    expect(seen.length).toBe(before);
  });

  describe('the access rule', () => {
    it('serves anyone on a loopback listener without admin.token_file', async () => {
      expect((await call('loopback', 'GET')).status).toBe(202);
    });

    it('refuses every operation on a listener reachable from the network until admin.token_file is set', async () => {
      const response = await call('exposed', 'GET');
      expect(response.status).toBe(403);
      expect(JSON.stringify(await response.json())).toContain('until admin.token_file is set');
    });

    it.each([
      ['no token', undefined, 401],
      ['a wrong token', `Bearer ${TOKEN}x`, 401],
      ['a prefix of the token', `Bearer ${TOKEN.slice(0, 10)}`, 401],
      ['the token without the Bearer scheme', TOKEN, 401],
      ['the token', `Bearer ${TOKEN}`, 202],
      ['the token, scheme in lower case', `bearer ${TOKEN}`, 202],
    ])('with admin.token_file: %s -> %i', async (_case, authorization, status) => {
      const response = await call('token', 'POST', { authorization });
      expect(response.status).toBe(status);
      if (status === 401) expect(JSON.stringify(await response.json())).toContain('admin token missing or wrong');
    });
  });

  /** A GET with the Host header a client chose (fetch would send the URL's own). */
  const withHost = (server: string, host: string) =>
    new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(servers[server]!.url);
      const req = request({ hostname, port, path: '/admin/v1/echo-GET', headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });

  it.each([
    ['localhost:9901', 202],
    ['127.0.0.1', 202],
    ['127.1.2.3:80', 202],
    ['[::1]:9901', 202],
    ['gateway.localhost:9901', 202],
    ['attacker.example:9901', 403],
    ['10.0.0.5:9901', 403],
    ['127.0.0.1.attacker.example', 403],
  ])('without a token, serves Host %s with %i: a page that reached loopback by DNS rebinding names its own host', async (host, status) => {
    expect(await withHost('loopback', host)).toBe(status);
  });

  it('with a token, the token decides, whatever the Host', async () => {
    const { hostname, port } = new URL(servers.token!.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ hostname, port, path: '/admin/v1/echo-GET', headers: { host: 'gateway.internal:9901', authorization: `Bearer ${TOKEN}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(202);
  });
});

describe('an admin operation that cannot be done now', () => {
  let server: AdminServer;
  beforeAll(async () => {
    const answers: Record<string, { status: number; body: unknown }> = {
      '/admin/v1/unavailable': { status: 503, body: { error: 'not possible right now (redis is reconnecting); try again' } },
      '/admin/v1/refused': { status: 409, body: { error: 'not now' } },
    };
    const routes = new Map(
      Object.entries(answers).map(([path, answer]) => [path, operationRoute({ path, method: 'POST', run: async () => answer }, { token: undefined, loopback: true }, async () => answer)] as const),
    );
    server = await startAdminServer(routes, '127.0.0.1', 0, () => undefined);
  });
  afterAll(() => server.close());

  it('answers 503 in the admin envelope with Retry-After: 1', async () => {
    const response = await fetch(`${server.url}/admin/v1/unavailable`, { method: 'POST' });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toEqual({ error: 'not possible right now (redis is reconnecting); try again' });
  });

  it('says nothing about retrying a refusal of another status', async () => {
    const response = await fetch(`${server.url}/admin/v1/refused`, { method: 'POST' });
    expect(response.status).toBe(409);
    expect(response.headers.get('retry-after')).toBeNull();
  });
});
