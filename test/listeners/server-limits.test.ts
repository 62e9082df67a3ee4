import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../../src/config/schema.js';
import { answerHalfClosedClients, applyServerLimits, serverOptionsOf } from '../../src/listeners/server-limits.js';
import { APP, USER } from '../helpers/accounts.js';
import { bootGateway, issueTokens, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';
import { startHeldUpstream } from '../helpers/held-upstream.js';
import { halfClosedExchange, rawConversation, rawExchange } from '../helpers/raw-http.js';

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

  it('turns on node\'s httpAllowHalfOpen', () => {
    const server = answerHalfClosedClients({} as Parameters<typeof answerHalfClosedClients>[0]);
    expect(server).toMatchObject({ httpAllowHalfOpen: true });
  });

  it('gets the answer of a proxied call, then the connection closes, logged as 200', async () => {
    const { access_token } = await issueTokens(tg.url);
    const before = accessLines().length;
    const { text, closed } = await halfClosedExchange(tg.url, `GET /business/score/v2/half HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${access_token}\r\n\r\n`);
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toContain('"url":"/business/score/v2/half"');
    expect(closed).toBe(true);
    await eventually(() => accessLines().length > before, { what: 'the access line of the half-closed call' });
    expect(accessLines().at(-1)).toMatchObject({ path: '/business/score/v2/half', status: 200 });
  });

  it('gets the token it asked for', async () => {
    const body = JSON.stringify({ username: USER.username, password: USER.password, ...APP });
    const { text, closed } = await halfClosedExchange(
      tg.url,
      `POST /oauth2/v1/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toContain('"access_token"');
    expect(closed).toBe(true);
  });

  it('gets every answer of its pipelined requests before the close', async () => {
    const { text, closed } = await halfClosedExchange(tg.url, 'GET /livez HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(2));
    expect(text.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    expect(closed).toBe(true);
  });

  it('is still refused when it half-closes in the middle of its body, which never completes', async () => {
    const before = accessLines().length;
    const { text, closed } = await halfClosedExchange(tg.url, 'POST /oauth2/v1/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user');
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(closed).toBe(true);
    await eventually(() => accessLines().length > before, { what: 'the access line of the cut request' });
    expect(accessLines().at(-1)).toMatchObject({ path: '/oauth2/v1/token', status: 499 });
  });

  it('leaves keep-alive as it was for a client that does not half-close', async () => {
    const { text, closed } = await rawConversation(tg.url, ['GET /livez HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /livez HTTP/1.1\r\nHost: x\r\n\r\n'], 100, 600);
    expect(text.match(/HTTP\/1\.1 200 [^]*?Connection: keep-alive/g)).toHaveLength(2);
    expect(closed).toBe(false);
  });
});

describe('a half-closed client during a graceful shutdown', () => {
  it('gets its answer with Connection: close, logged as 200, and the shutdown ends', async () => {
    const held = await startHeldUpstream();
    const tg = await bootGateway({ config: { routes: [{ path: '/held/', upstream: held.url, timeout: '5s' }] } });
    try {
      const { access_token } = await issueTokens(tg.url);
      const answered = halfClosedExchange(tg.url, `GET /held/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${access_token}\r\n\r\n`);
      await eventually(() => held.held === 1, { what: 'the call to reach the upstream' });
      const closed = tg.gateway.close();
      held.release();
      const { text } = await answered;
      expect(text).toMatch(/^HTTP\/1\.1 200 [^]*\r\nConnection: close\r\n/);
      await closed;
      expect(tg.logs.filter((line) => line.msg === 'request').at(-1)).toMatchObject({ path: '/held/x', status: 200 });
    } finally {
      await tg.close();
      await held.close();
    }
  });
});
