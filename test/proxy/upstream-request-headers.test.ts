import { request, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { assertValidHost, forwardedElement, namedByConnection } from '../../src/proxy/upstream-request-headers.js';
import { rawExchange } from '../helpers/raw-http.js';
import { bootGateway, issueTokens, type TestGateway } from '../helpers/gateway.js';

/** A raw request: fetch refuses to send Connection and rewrites other headers these tests need as written. */
function send(url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; requestId: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = request({ hostname, port, path: '/business/score/v2/directors', method: body ? 'POST' : 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['x-request-id']) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the headers an upstream receives', () => {
  let tg: TestGateway;
  let authorization: string;
  let host: string;
  const lastSeen = (): IncomingHttpHeaders => tg.upstream.seen.at(-1)!.headers;
  beforeAll(async () => {
    tg = await bootGateway();
    authorization = `Bearer ${(await issueTokens(tg.url)).access_token}`;
    host = new URL(tg.url).host;
  });
  afterAll(() => tg.close());

  it('writes each request its own Forwarded element, however the Host changes from one request to the next', async () => {
    const seen: unknown[] = [];
    for (const requestHost of ['a.example.com', 'b.example.com:8443', 'a.example.com', 'a.example.com']) {
      expect((await send(tg.url, { authorization, host: requestHost })).status).toBe(200);
      seen.push(lastSeen().forwarded);
    }
    expect(seen).toEqual([
      'for=127.0.0.1;proto=http;host=a.example.com',
      'for=127.0.0.1;proto=http;host="b.example.com:8443"',
      'for=127.0.0.1;proto=http;host=a.example.com',
      'for=127.0.0.1;proto=http;host=a.example.com',
    ]);
  });

  describe("a client's Connection header cannot remove what the gateway sets or authenticated", () => {
    it('keeps X-Forwarded-For when Connection names it', async () => {
      expect((await send(tg.url, { authorization, connection: 'close, X-Forwarded-For' })).status).toBe(200);
      expect(lastSeen()['x-forwarded-for']).toBe('127.0.0.1');
    });

    it('keeps X-Forwarded-Proto, -Host and -Port when Connection names them', async () => {
      await send(tg.url, { authorization, connection: 'X-Forwarded-Proto, X-Forwarded-Host, X-Forwarded-Port' });
      expect(lastSeen()).toMatchObject({ 'x-forwarded-proto': 'http', 'x-forwarded-host': host, 'x-forwarded-port': new URL(tg.url).port });
    });

    it('keeps the X-Request-Id the client is told when Connection names it', async () => {
      const { requestId } = await send(tg.url, { authorization, connection: 'X-Request-Id' });
      expect(lastSeen()['x-request-id']).toBe(requestId);
    });

    it('keeps Authorization on an authenticated call when Connection names it', async () => {
      await send(tg.url, { authorization, connection: 'Authorization' });
      expect(lastSeen().authorization).toBe(authorization);
    });

    it('keeps the body framing and type the policies saw', async () => {
      await send(tg.url, { authorization, connection: 'Content-Type, Content-Length', 'content-type': 'application/json' }, '{"a":1}');
      expect(lastSeen()).toMatchObject({ 'content-type': 'application/json', 'content-length': '7' });
      expect(tg.upstream.seen.at(-1)!.body).toBe('{"a":1}');
    });

    it("still drops the client's own headers that Connection names", async () => {
      await send(tg.url, { authorization, connection: 'close, X-Hop-Only', 'x-hop-only': 'for the gateway', 'x-end-to-end': 'kept' });
      expect(lastSeen()['x-hop-only']).toBeUndefined();
      expect(lastSeen()['x-end-to-end']).toBe('kept');
    });
  });

  describe('forwarding headers the client wrote are not believed', () => {
    it('replaces Forwarded with one element of its own, equal to X-Forwarded-*', async () => {
      await send(tg.url, { authorization, forwarded: 'for=10.9.9.9;proto=https;host=forged.example' });
      expect(lastSeen().forwarded).toBe(`for=127.0.0.1;proto=http;host="${host}"`);
    });

    it.each(['X_Forwarded_For', 'X_Forwarded_Proto', 'X_Forwarded_Host', 'X_Forwarded_Port', 'x_request_id', 'X-Forwarded_For'])(
      'drops %s, which CGI, WSGI and Rack upstreams read as the header the gateway sets',
      async (name) => {
        await send(tg.url, { authorization, [name]: 'forged' });
        const seen = lastSeen();
        expect(seen[name.toLowerCase()]).toBeUndefined();
        expect(Object.values(seen)).not.toContain('forged');
      },
    );

    it('passes other headers with underscores through (the token endpoint reads client_id this way)', async () => {
      await send(tg.url, { authorization, x_customer_ref: 'abc' });
      expect(lastSeen().x_customer_ref).toBe('abc');
    });
  });

  it('documents each gateway header: what the upstream may rely on', async () => {
    await send(tg.url, { authorization, 'x-forwarded-for': '6.6.6.6' });
    expect(lastSeen()).toMatchObject({
      host: new URL(tg.upstream.url).host,
      'x-forwarded-for': '6.6.6.6, 127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': host,
      forwarded: `for=127.0.0.1;proto=http;host="${host}"`,
      authorization,
    });
  });
});

describe('behind trusted proxies', () => {
  let tg: TestGateway;
  let authorization: string;
  beforeAll(async () => {
    tg = await bootGateway({ config: { trusted_proxies: ['127.0.0.1/32'] } });
    authorization = `Bearer ${(await issueTokens(tg.url)).access_token}`;
  });
  afterAll(() => tg.close());

  it("writes Forwarded from the balancer's view: the client it names, its scheme and host", async () => {
    await send(tg.url, {
      authorization,
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.example.com',
      forwarded: 'for=10.9.9.9;host=forged.example',
    });
    expect(tg.upstream.seen.at(-1)!.headers).toMatchObject({
      'x-forwarded-for': '203.0.113.7, 127.0.0.1',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.example.com',
      forwarded: 'for=203.0.113.7;proto=https;host=api.example.com',
    });
  });

  // Each X-Forwarded-* header on its own: one the balancer did not send, or sent in a form the upstream was not
  // promised, is written from what the gateway saw.
  it.each([
    ['only X-Forwarded-Proto', { 'x-forwarded-proto': 'HTTPS' }, { proto: 'https', host: 'own', port: 'own' }],
    ['only X-Forwarded-Host', { 'x-forwarded-host': 'api.example.com' }, { proto: 'http', host: 'api.example.com', port: 'own' }],
    ['only X-Forwarded-Port', { 'x-forwarded-port': '443' }, { proto: 'http', host: 'own', port: '443' }],
    ['a scheme that is neither http nor https', { 'x-forwarded-proto': 'gopher' }, { proto: 'http', host: 'own', port: 'own' }],
    ['a list of schemes', { 'x-forwarded-proto': 'https, http' }, { proto: 'http', host: 'own', port: 'own' }],
    ['a list of hosts', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'a.example, b.example' }, { proto: 'https', host: 'own', port: 'own' }],
    ['a host with a space and a path', { 'x-forwarded-host': 'a b/c' }, { proto: 'http', host: 'own', port: 'own' }],
    ['a port out of range', { 'x-forwarded-port': '70000' }, { proto: 'http', host: 'own', port: 'own' }],
    ['a port that is not a number', { 'x-forwarded-port': '443x' }, { proto: 'http', host: 'own', port: 'own' }],
  ])('from a trusted balancer, %s', async (_case, sent, expected) => {
    await send(tg.url, { authorization, ...sent });
    const { host, port } = new URL(tg.url);
    const want = {
      proto: expected.proto,
      host: expected.host === 'own' ? host : expected.host,
      port: expected.port === 'own' ? port : expected.port,
    };
    const seen = tg.upstream.seen.at(-1)!.headers;
    expect([seen['x-forwarded-proto'], seen['x-forwarded-host'], seen['x-forwarded-port']]).toEqual([want.proto, want.host, want.port]);
    // RFC 7239 quotes a host:port (not a token); a bare name goes as it is.
    const hostValue = want.host.includes(':') ? `"${want.host}"` : want.host;
    expect(seen.forwarded).toBe(`for=127.0.0.1;proto=${want.proto};host=${hostValue}`);
  });
});

describe('forwardedElement (RFC 7239 4)', () => {
  it.each([
    ['192.0.2.1', 'http', 'api.example.com', 'for=192.0.2.1;proto=http;host=api.example.com'],
    ['2001:db8::1', 'https', 'api.example.com:8443', 'for="[2001:db8::1]";proto=https;host="api.example.com:8443"'],
    ['', 'http', undefined, 'for=unknown;proto=http'],
    ['192.0.2.1', 'http', 'we"ird\\host', 'for=192.0.2.1;proto=http;host="we\\"ird\\\\host"'],
  ])('%s %s %s -> %s', (client, proto, host, expected) => {
    expect(forwardedElement(client, proto, host)).toBe(expected);
  });
});

describe('namedByConnection (RFC 9110 7.6.1)', () => {
  it.each([
    ['keep-alive', undefined],
    [' Keep-Alive ', undefined],
    ['close', undefined],
    ['keep-alive, X-Secret-Hop', ['x-secret-hop']],
    ['Upgrade, x-a,X-B', ['x-a', 'x-b']],
    [['keep-alive', 'x-c'], ['x-c']],
    ['', undefined],
  ] as const)('%j names %j', (connection, named) => {
    expect(namedByConnection(connection as string | string[])).toEqual(named);
  });

  it('never names what the caller keeps', () => {
    expect(namedByConnection('authorization, x-d', new Set(['authorization']))).toEqual(['x-d']);
  });
});

describe('assertValidHost: one Host, a valid one (RFC 9112 3.2)', () => {
  const verdict = (host: string | undefined) => {
    try {
      assertValidHost(host);
      return 'ok';
    } catch (error) {
      return isGatewayError(error) ? `${error.code}: ${error.detail}` : 'thrown';
    }
  };
  it.each(['api.example.com', 'api.example.com:8443', '127.0.0.1:8080', '[::1]:8080', '[2001:db8::1]', 'xn--bcher-kva.example', ''])('accepts %j', (host) => {
    expect(verdict(host)).toBe('ok');
    // Twice: the second time from the remembered one.
    expect(verdict(host)).toBe('ok');
  });
  it('accepts a request without Host (HTTP/1.0)', () => expect(verdict(undefined)).toBe('ok'));
  it.each([
    ['two Host lines, as the listener joins them', 'a.example.com, b.example.com'],
    ['a list written in one line', 'a,for=6.6.6.6'],
    ['a space', 'a b'],
    ['a quote', 'a"b'],
    ['a path', 'a/b'],
    ['an unclosed IP literal', '[::1'],
  ])('refuses %s: 400 MALFORMED_REQUEST', (_case, host) => {
    expect(verdict(host)).toBe(`MALFORMED_REQUEST: Host ${JSON.stringify(host)} is not one host[:port]`);
  });
});

describe('a repeated Host or Authorization line on the wire', () => {
  let tg: TestGateway;
  let token: string;
  beforeAll(async () => {
    tg = await bootGateway();
    token = (await issueTokens(tg.url)).access_token;
  });
  afterAll(() => tg.close());
  const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  const get = (headers: string) => rawExchange(tg.url, `GET /business/score/v2/directors HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`);

  it('refuses two Host lines with 400 and forwards nothing (node alone would keep the first)', async () => {
    const before = tg.upstream.seen.length;
    const { text } = await get(`Host: a.example.com\r\nHost: b.example.com\r\nAuthorization: Bearer ${token}\r\n`);
    expect(statusOf(text)).toBe(400);
    expect(text).toContain('MALFORMED_REQUEST');
    expect(tg.upstream.seen.length).toBe(before);
  });

  it('refuses two Authorization lines, the valid token first, as an invalid token: the first is not taken', async () => {
    const { text } = await get(`Host: x\r\nAuthorization: Bearer ${token}\r\nAuthorization: Bearer junk\r\n`);
    expect(statusOf(text)).toBe(401);
    expect(text).toContain('ACCESS_TOKEN_INVALID');
    expect(tg.logs.at(-1)).toMatchObject({ status: 401, detail: 'more than one Authorization header' });
  });

  it('refuses two Authorization lines whatever their schemes (Basic first, then a valid Bearer)', async () => {
    const { text } = await get(`Host: x\r\nAuthorization: Basic YTpi\r\nAuthorization: Bearer ${token}\r\n`);
    expect(statusOf(text)).toBe(401);
    expect(text).toContain('ACCESS_TOKEN_INVALID');
  });

  it('still serves one Host and one Authorization line', async () => {
    const { text } = await get(`Host: x\r\nAuthorization: Bearer ${token}\r\n`);
    expect(statusOf(text)).toBe(200);
  });

  it('refuses two Content-Length lines of the same value before any phase, as node always did', async () => {
    const { text } = await rawExchange(tg.url, `POST /business/score/v2/directors HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Length: 2\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expect(statusOf(text)).toBe(400);
  });
});
