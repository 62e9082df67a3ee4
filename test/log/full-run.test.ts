import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ALL_SECRETS, APP, OTHER_APP, USER } from '../helpers/accounts.js';
import { type TokenResponse } from '../helpers/gateway.js';
import { GatewayProcess, TEST_KEK } from '../helpers/gateway-process.js';
import { eventually } from '../helpers/eventually.js';
import { RedisServer } from '../helpers/redis-server.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

/**
 * One real `token-gateway serve` process at log level trace, on a Redis that
 * wants a password, driven through everything clients and an operator do,
 * then stopped. Its whole output, stdout and stderr, must hold none of the
 * secrets used along the way, and must hold the access line of every request.
 */

type Line = Record<string, unknown>;

/** Every value that must never reach a log: each made up for this run, so a match cannot be a coincidence. */
const secrets = new Set<string>();
const secret = (name: string): string => {
  const value = `${name}-${randomBytes(12).toString('hex')}`;
  secrets.add(value);
  return value;
};

/** A token and the parts of it that would betray it on their own (a JWT's payload and signature; a refresh token's random half). */
function addToken(token: string): void {
  secrets.add(token);
  for (const part of token.split('.').slice(1)) if (part.length >= 16) secrets.add(part);
}

const basic = (user: string, password: string): string => {
  const encoded = Buffer.from(`${user}:${password}`).toString('base64');
  secrets.add(encoded);
  const value = `Basic ${encoded}`;
  secrets.add(value);
  return value;
};

const REDIS_PASSWORD = secret('redis-password');
const ADMIN_TOKEN = secret('admin-token');

const POLICIES = {
  policies: [
    { name: 'injection-guard', kind: 'regex-protection' },
    { name: 'json-guard', kind: 'json-threat', max_depth: 3 },
    { name: 'by-client', kind: 'spike-arrest', rate: '1000ps', identifier: 'client_id' },
    { name: 'nobody', kind: 'ip-range', rules: [{ allow: '10.0.0.0/8' }], default: 'deny' },
    { name: 'one-per-minute', kind: 'spike-arrest', rate: '1pm', identifier: 'ip' },
  ],
};

describe('a whole run of a gateway process, stdout and stderr', () => {
  let redis: RedisServer;
  let upstream: TestUpstream;
  let gateway: GatewayProcess;
  let dir: string;
  /** What each request's access line must say, by the request id the gateway answered with. */
  const expectations = new Map<string, Line>();
  let output = '';
  let lines: Line[] = [];

  /** Sends a request and records the access line it must produce. */
  async function send(expected: Line, url: string, init: RequestInit = {}): Promise<Response> {
    const response = await fetch(url, init);
    const requestId = response.headers.get('x-request-id');
    if (!requestId) throw new Error(`no X-Request-Id from ${url}`);
    expect(response.status, `${init.method ?? 'GET'} ${url}`).toBe(expected.status);
    expectations.set(requestId, expected);
    return response;
  }

  const token = (headers: Record<string, string>, body?: string): RequestInit => ({ method: 'POST', headers, body });
  const json = { 'content-type': 'application/json' };
  const tokenUrl = () => `${gateway.url}/oauth2/v1/token`;
  const api = (path = '/business/score/v2/directors') => `${gateway.url}${path}`;
  const TOKEN_ROUTE = { route: '/oauth2/v1/token' };
  const API_ROUTE = { route: '/business/score/v2/' };

  async function tokensOf(response: Response): Promise<TokenResponse> {
    const tokens = (await response.json()) as TokenResponse;
    addToken(tokens.access_token);
    addToken(tokens.refresh_token);
    return tokens;
  }

  async function clientsAndOperator(): Promise<void> {
    const passwordBody = (overrides: Record<string, string> = {}) => JSON.stringify({ ...USER, ...APP, ...overrides });

    // Password grants: right, wrong (with a password header thrown in), client in HTTP Basic, a secret typed as client_id.
    const first = await tokensOf(await send({ ...TOKEN_ROUTE, status: 200, clientId: APP.client_id }, tokenUrl(), token(json, passwordBody())));
    await send({ ...TOKEN_ROUTE, status: 401, errorCode: 'INVALID_USER_CREDENTIALS' }, tokenUrl(), token({ ...json, password: secret('password-header') }, passwordBody({ password: secret('wrong-password') })));
    const viaBasic = await tokensOf(
      await send({ ...TOKEN_ROUTE, status: 200, clientId: APP.client_id }, tokenUrl(), token({ ...json, authorization: basic(APP.client_id, APP.client_secret) }, JSON.stringify(USER))),
    );
    await send({ ...TOKEN_ROUTE, status: 401, errorCode: 'INVALID_CLIENT_CREDENTIALS' }, tokenUrl(), token(json, passwordBody({ client_id: secret('secret-as-client-id') })));
    await send({ ...TOKEN_ROUTE, status: 401, errorCode: 'INVALID_CLIENT_CREDENTIALS' }, tokenUrl(), token({ ...json, authorization: basic(APP.client_id, secret('wrong-basic-secret')) }, JSON.stringify(USER)));
    // Malformed and mistyped bodies that carry a password.
    await send({ ...TOKEN_ROUTE, status: 400, errorCode: 'MALFORMED_JSON_BODY' }, tokenUrl(), token(json, `{"username":"${USER.username}","password":"${secret('malformed-body-password')}",`));
    await send({ ...TOKEN_ROUTE, status: 415, errorCode: 'UNSUPPORTED_MEDIA_TYPE' }, tokenUrl(), token({ 'content-type': 'text/plain' }, passwordBody({ password: secret('text-body-password') })));

    // Refresh: right, then with a wrong client secret.
    const refreshHeaders = (refreshToken: string, clientSecret = APP.client_secret) => ({ ...json, grant_type: 'refresh_token', refresh_token: refreshToken, client_id: APP.client_id, client_secret: clientSecret });
    const second = await tokensOf(await send({ ...TOKEN_ROUTE, status: 200, clientId: APP.client_id }, tokenUrl(), token(refreshHeaders(first.refresh_token))));
    await send({ ...TOKEN_ROUTE, status: 401, errorCode: 'INVALID_CLIENT_CREDENTIALS' }, tokenUrl(), token(refreshHeaders(second.refresh_token, secret('wrong-client-secret'))));

    // Protected calls: valid; with a secret in the query; with other credential headers; without and with bad credentials.
    const bearer = (accessToken: string) => {
      const value = `Bearer ${accessToken}`;
      secrets.add(value);
      return { authorization: value };
    };
    await send({ ...API_ROUTE, status: 200, clientId: APP.client_id, path: '/business/score/v2/directors' }, api(), { headers: bearer(second.access_token) });
    await send({ ...API_ROUTE, status: 200, path: '/business/score/v2/directors' }, api(`/business/score/v2/directors?api_key=${secret('query-secret')}`), { headers: bearer(viaBasic.access_token) });
    await send({ ...API_ROUTE, status: 200 }, api(), {
      headers: { ...bearer(second.access_token), cookie: `session=${secret('cookie-secret')}`, 'x-api-key': secret('api-key'), 'proxy-authorization': basic('proxy-user', secret('proxy-password')) },
    });
    await send({ ...API_ROUTE, status: 401, errorCode: 'AUTHENTICATION_REQUIRED' }, api());
    await send({ ...API_ROUTE, status: 401, errorCode: 'ACCESS_TOKEN_INVALID' }, api(), { headers: { authorization: `Bearer ${secret('forged-token')}` } });
    await send({ ...API_ROUTE, status: 401, errorCode: 'AUTHENTICATION_REQUIRED' }, api(), { headers: { authorization: basic(USER.username, USER.password) } });

    // Requests refused by policies, each carrying a secret where the policy looks.
    await send({ ...API_ROUTE, status: 401, errorCode: 'REGEX_THREAT', policy: 'injection-guard' }, api(`/business/score/v2/directors?q=${encodeURIComponent(`${secret('regex-query-secret')}' OR 1=1 --`)}`), { headers: bearer(second.access_token) });
    await send({ ...API_ROUTE, status: 401, errorCode: 'REGEX_THREAT', policy: 'injection-guard' }, api(), {
      method: 'POST',
      headers: { ...json, ...bearer(second.access_token) },
      body: JSON.stringify({ password: `${secret('regex-body-password')}' OR 1=1 --` }),
    });
    await send({ ...API_ROUTE, status: 401, errorCode: 'JSON_THREAT', policy: 'json-guard' }, api(), {
      method: 'POST',
      headers: { ...json, ...bearer(second.access_token) },
      body: JSON.stringify({ a: { b: { c: { password: secret('deep-body-password') } } } }),
    });
    await send({ route: '/private/', status: 403, errorCode: 'IP_RANGE_FORBIDDEN', policy: 'nobody' }, api('/private/report'), { headers: bearer(second.access_token) });
    const limited: Response[] = [];
    for (let i = 0; i < 3; i++) limited.push(await fetch(api('/limited/x'), { headers: bearer(second.access_token) }));
    const arrested = limited.filter((response) => response.status === 401);
    // Three requests within milliseconds span at most two one-minute windows: at least one is refused.
    expect(arrested.length).toBeGreaterThanOrEqual(1);
    for (const response of limited) {
      expectations.set(response.headers.get('x-request-id') ?? '', response.status === 401 ? { route: '/limited/', status: 401, errorCode: 'SPIKE_ARREST', policy: 'one-per-minute' } : { route: '/limited/', status: 200 });
    }

    // Revocation: with a wrong client secret, then right; the revoked token is refused; a used refresh token retried
    // within the grace window (the same successor), then replayed once its successor has been used (the grant revoked).
    const revokeHeaders = (tokenValue: string, clientSecret = APP.client_secret) => ({ client_id: APP.client_id, client_secret: clientSecret, token: tokenValue });
    const revokeUrl = `${gateway.url}/oauth2/v1/revokeToken`;
    await send({ route: '/oauth2/v1/revokeToken', status: 401, errorCode: 'INVALID_CLIENT_CREDENTIALS' }, revokeUrl, token(revokeHeaders(second.access_token, secret('wrong-revoke-secret'))));
    await send({ route: '/oauth2/v1/revokeToken', status: 400, errorCode: 'TOKEN_NOT_ISSUED_TO_CLIENT' }, revokeUrl, token({ client_id: OTHER_APP.client_id, client_secret: OTHER_APP.client_secret, token: second.access_token }));
    await send({ route: '/oauth2/v1/revokeToken', status: 200, clientId: APP.client_id }, revokeUrl, token(revokeHeaders(second.access_token)));
    await send({ ...API_ROUTE, status: 401, errorCode: 'ACCESS_TOKEN_INVALID' }, api(), { headers: bearer(second.access_token) });
    const retried = await tokensOf(await send({ ...TOKEN_ROUTE, status: 200, clientId: APP.client_id }, tokenUrl(), token(refreshHeaders(first.refresh_token))));
    expect(retried.refresh_token).toBe(second.refresh_token);
    await tokensOf(await send({ ...TOKEN_ROUTE, status: 200, clientId: APP.client_id }, tokenUrl(), token(refreshHeaders(second.refresh_token))));
    await send({ ...TOKEN_ROUTE, status: 400, errorCode: 'INVALID_REFRESH_TOKEN' }, tokenUrl(), token(refreshHeaders(first.refresh_token)));

    // The operator: probes on both listeners, the admin API with a right and a wrong token, a policy reload by
    // signal, and an edit that is refused.
    for (const base of [gateway.url, gateway.adminUrl]) for (const probe of ['/livez', '/readyz']) expect((await fetch(`${base}${probe}`)).status).toBe(200);
    const admin = (path: string, tokenValue: string, body?: unknown) =>
      fetch(`${gateway.adminUrl}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${tokenValue}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((response) => response.status);
    expect(await admin('/admin/v1/grants', ADMIN_TOKEN)).toBe(200);
    expect(await admin('/admin/v1/grants', secret('wrong-admin-token'))).toBe(401);
    expect(await admin('/admin/v1/keys/rotate', ADMIN_TOKEN, {})).toBe(200);
    expect(await admin('/admin/v1/revocations', ADMIN_TOKEN, { client_id: OTHER_APP.client_id })).toBe(200);
    gateway.signal('SIGHUP');
    await eventually(() => gateway.lines.some((line) => line.msg === 'policies reloaded' && line.reason === 'SIGHUP'));
    await writeFile(join(dir, 'policies', 'broken.yaml'), 'policies:\n  - name: broken\n    kind: no-such-kind\n');
    await eventually(() => gateway.lines.some((line) => String(line.msg).startsWith('policy reload rejected')));
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'token-gateway-full-run-'));
    redis = await RedisServer.start({ args: ['--requirepass', REDIS_PASSWORD] });
    upstream = await startUpstream();
    await writeFile(join(dir, 'admin-token'), `${ADMIN_TOKEN}\n`);
    await mkdir(join(dir, 'policies'));
    await writeFile(join(dir, 'policies', 'all.yaml'), stringify(POLICIES));
    gateway = await GatewayProcess.start({
      log: { level: 'trace' },
      environment: `full-run-${randomBytes(4).toString('hex')}`,
      // The password in the URL, where a careless log of the store's address would print it.
      store: `redis://:${REDIS_PASSWORD}@127.0.0.1:${redis.port}/0`,
      admin: { host: '127.0.0.1', port: 0, token_file: join(dir, 'admin-token') },
      policies: { folder: join(dir, 'policies'), defaults: ['injection-guard'] },
      routes: [
        { path: '/business/score/v2/', upstream: upstream.url, timeout: '2s', policies: ['json-guard', 'by-client'] },
        { path: '/private/', upstream: upstream.url, timeout: '2s', policies: ['nobody'] },
        { path: '/limited/', upstream: upstream.url, timeout: '2s', policies: ['one-per-minute'] },
      ],
    });
    await gateway.ready();
    await clientsAndOperator();
    expect(await gateway.stop()).toBe(0);
    await gateway.outputComplete;
    output = `${gateway.output.stdout}\n${gateway.output.stderr}`;
    lines = gateway.lines;
  }, 90_000);

  afterAll(async () => {
    if (gateway?.alive) await gateway.stop();
    await upstream?.close();
    await redis?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('ran at trace level, on the password-protected Redis, through a policy reload and a graceful stop', () => {
    expect(lines.find((line) => line.msg === 'token-gateway listening')).toMatchObject({ level: 30, store: `redis 127.0.0.1:${redis.port}/0` });
    expect(lines.some((line) => line.msg === 'redis connected')).toBe(true);
    expect(lines.some((line) => line.msg === 'shutting down')).toBe(true);
    expect(lines.filter((line) => 'unparsed' in line)).toEqual([]);
  });

  it('contains no password, client secret, token, Authorization value, credential header, query secret, Redis password, KEK or admin token', () => {
    const everySecret = [...secrets, ...ALL_SECRETS, TEST_KEK];
    expect(everySecret.length).toBeGreaterThan(40);
    const leaked = everySecret.filter((value) => output.includes(value));
    expect(leaked).toEqual([]);
    // Not a vacuous pass: the credential headers and the query secret did cross the gateway, to the upstream.
    const forwarded = JSON.stringify(upstream.seen);
    for (const prefix of ['query-secret-', 'cookie-secret-', 'api-key-', 'Bearer ']) expect(forwarded).toContain(prefix);
  });

  it('has exactly one access line per request, with request id, route, status, latency, client_id and the refusing policy', () => {
    const accessLines = lines.filter((line) => line.msg === 'request');
    for (const [requestId, expected] of expectations) {
      const mine = accessLines.filter((line) => line.requestId === requestId);
      expect(mine, `access lines for ${JSON.stringify(expected)}`).toHaveLength(1);
      expect(mine[0]).toMatchObject({ ...expected, method: expect.any(String), path: expect.any(String), latencyMs: expect.any(Number) });
      if (!('policy' in expected)) expect(mine[0]).not.toHaveProperty('policy');
    }
    expect(new Set(accessLines.map((line) => line.policy).filter(Boolean))).toEqual(new Set(['injection-guard', 'json-guard', 'nobody', 'one-per-minute']));
    for (const line of accessLines) expect(String(line.path)).not.toContain('?');
  });
});
