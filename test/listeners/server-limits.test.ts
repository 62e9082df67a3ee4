import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../../src/config/schema.js';
import { applyServerLimits, serverOptionsOf } from '../../src/listeners/server-limits.js';
import { bootGateway, issueTokens, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';
import { halfClosedExchange, rawExchange } from '../helpers/raw-http.js';

const LIMITS = { headers_timeout: 10_000, request_timeout: 30_000, keep_alive_timeout: 5_000 } as GatewayConfig['limits'];

describe('server limits from limits:', () => {
  it('sets node\'s header, request and keep-alive timeouts, checked at most every second', () => {
    expect(serverOptionsOf(LIMITS)).toEqual({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000, joinDuplicateHeaders: true });
    expect(serverOptionsOf({ ...LIMITS, headers_timeout: 300 }).connectionsCheckingInterval).toBe(75);
  });

  it('applies reloaded limits to a running server', () => {
    const server = { headersTimeout: 0, requestTimeout: 0, keepAliveTimeout: 0 } as Parameters<typeof applyServerLimits>[0];
    applyServerLimits(server, { ...LIMITS, headers_timeout: 1_000, request_timeout: 2_000, keep_alive_timeout: 3_000 });
    expect(server).toMatchObject({ headersTimeout: 1_000, requestTimeout: 2_000, keepAliveTimeout: 3_000 });
  });
});

describe('slow and hostile clients, cut by the server limits', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    // Real socket timeouts (node's own timers, which a test clock cannot reach): short, so each cut comes within a second.
    tg = await bootGateway({ config: { limits: { headers_timeout: '300ms', request_timeout: '600ms' } } });
  });
  afterAll(() => tg.close());

  it('cuts a client that never finishes its headers (slowloris)', async () => {
    const started = Date.now();
    const { closed } = await rawExchange(tg.url, 'GET /oauth2/v1/keys HTTP/1.1\r\nHost: x\r\n');
    expect(closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('cuts a client that never finishes its body', async () => {
    const { closed } = await rawExchange(tg.url, 'POST /oauth2/v1/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user');
    expect(closed).toBe(true);
  });
});

describe('a client that half-closes its socket after its request (nc -N, some HTTP/1.0 tools)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  const accessLines = () => tg.logs.filter((line) => line.msg === 'request');

  // A half-close and a client gone both arrive as a FIN: the gateway takes it as gone (as nginx does, its 499),
  // so an abandoned call frees its upstream at once; waiting for an answer would hold it until the route's timeout.
  it('is taken as gone: the connection closes at once, the call is logged as 499', async () => {
    const { access_token } = await issueTokens(tg.url);
    const before = accessLines().length;
    const started = Date.now();
    const { closed } = await halfClosedExchange(tg.url, `GET /business/score/v2/half HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${access_token}\r\n\r\n`);
    expect(closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    await eventually(() => accessLines().length > before, { what: 'the access line of the half-closed call' });
    expect(accessLines().at(-1)).toMatchObject({ path: '/business/score/v2/half', status: 499 });
  });
});
