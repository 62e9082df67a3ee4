import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadGatewayConfig } from '../../src/config/load.js';
import type { Exchange } from '../../src/http/exchange.js';
import { startGateway, type RunningGateway } from '../../src/lifecycle/start.js';
import { createUndiciForwarder, type UndiciForwarderTuning } from '../../src/proxy/undici-forwarder.js';
import { accountsYaml } from '../helpers/accounts.js';
import { eventually } from '../helpers/eventually.js';
import { issueTokens } from '../helpers/gateway.js';

/**
 * What the undici engine adds to the forwarding contract of forward.test.ts:
 * hop-by-hop headers, repeated headers, the upstream's base path, aborts that
 * free pooled connections, and backpressure. Each test scripts the upstream
 * for its own path (the last segment picks the script).
 */

interface ScriptedUpstream {
  url: string;
  /** Every request that reached the upstream, in order. */
  seen: Array<{ url: string; headers: IncomingHttpHeaders }>;
  script(name: string, handler: RequestListener): void;
  openConnections(): Promise<number>;
  close(): Promise<void>;
}

async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  const seen: ScriptedUpstream['seen'] = [];
  const scripts = new Map<string, RequestListener>();
  const echo: RequestListener = (req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  };
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const name = (req.url ?? '').split('?')[0]!.split('/').at(-1)!;
    (scripts.get(name) ?? echo)(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    script: (name, handler) => void scripts.set(name, handler),
    openConnections: () => new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count)))),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface UndiciGateway {
  gateway: RunningGateway;
  url: string;
  token: string;
  logs(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * A real gateway from YAML, with the undici engine passed through the `createForwarder` seam (to tune its pool);
 * `forwarded` sees each exchange right after the engine took it.
 */
async function bootUndiciGateway(routes: Array<Record<string, unknown>>, tuning: UndiciForwarderTuning = {}, forwarded?: (exchange: Exchange) => void): Promise<UndiciGateway> {
  const dir = await mkdtemp(join(tmpdir(), 'token-gateway-undici-'));
  await writeFile(join(dir, 'accounts.yaml'), await accountsYaml());
  await writeFile(join(dir, 'gateway.yaml'), stringify({ listen: { host: '127.0.0.1', port: 0 }, admin: { port: 0 }, accounts: './accounts.yaml', routes }));
  const rawLogs: string[] = [];
  const gateway = await startGateway({
    config: await loadGatewayConfig(join(dir, 'gateway.yaml')),
    logDestination: { write: (line: string) => void rawLogs.push(line) },
    watchPolicies: false,
    shutdownGraceMs: 1_000,
    createForwarder: (options) => {
      const engine = createUndiciForwarder(options, tuning);
      if (!forwarded) return engine;
      return {
        forward(exchange, route) {
          const call = engine.forward(exchange, route);
          forwarded(exchange);
          return call;
        },
        close: () => engine.close(),
      };
    },
  });
  return {
    gateway,
    url: gateway.url,
    token: (await issueTokens(gateway.url)).access_token,
    logs: () => rawLogs.map((line) => JSON.parse(line) as Record<string, unknown>),
    async close() {
      await gateway.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

interface RawResponse {
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

/** node's client rather than fetch: it sends hop-by-hop headers as given and shows the response's raw header lines. */
function rawGet(url: string, path: string, headers: Record<string, string>, chunkedBody?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: chunkedBody === undefined ? 'GET' : 'POST', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage ?? '', headers: res.headers, rawHeaders: res.rawHeaders, body }));
    });
    req.on('error', reject);
    if (chunkedBody !== undefined) req.write(chunkedBody);
    req.end();
  });
}

/** Sends a GET and resolves with its response as soon as the head arrives, not reading the body (the stream stays paused). */
function openResponse(url: string, path: string, token: string): Promise<{ res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      res.on('error', () => {}); // the tests cut these responses themselves
      resolve({ res });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Bounded wait for the access line the gateway writes on its own once the exchange is over. */
const lastLogFor = (gw: UndiciGateway, path: string) =>
  eventually(() => gw.logs().filter((entry) => entry.msg === 'request' && entry.path === path).at(-1), { intervalMs: 10, what: `the access line for ${path}` });

/** An upstream response that never ends: as fast as its reader takes it, until the connection goes. */
async function writeUntilClosed(res: ServerResponse, chunk: Buffer): Promise<void> {
  let closed = false;
  res.once('close', () => {
    closed = true;
    res.emit('drain');
  });
  while (!closed) if (!res.write(chunk)) await once(res, 'drain');
}

/** Resolves when the upstream's response closes, with whether it had been sent completely. */
const closeOf = (res: ServerResponse): Promise<{ finished: boolean }> => once(res, 'close').then(() => ({ finished: res.writableFinished }));

describe('the undici engine', () => {
  let upstream: ScriptedUpstream;
  let gw: UndiciGateway;
  /** How many `close` listeners each forwarded response carried once the engine had taken it, by path. */
  const closeListeners = new Map<string, number>();
  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    gw = await bootUndiciGateway(
      [
        { path: '/api/', upstream: upstream.url, timeout: '60s' },
        { path: '/based/', upstream: `${upstream.url}/v1/`, timeout: '5s' },
        { path: '/impatient/', upstream: upstream.url, timeout: '300ms' },
      ],
      {},
      (exchange) => void closeListeners.set(exchange.path, exchange.res.listenerCount('close')),
    );
  });
  afterAll(async () => {
    await gw.close();
    await upstream.close();
  });

  it('does not forward hop-by-hop request headers, nor those the Connection header names', async () => {
    // A chunked body, the only kind of request that may announce a Trailer.
    const response = await rawGet(gw.url, '/api/hop', {
      authorization: `Bearer ${gw.token}`,
      connection: 'close, X-Hop-Secret',
      'x-hop-secret': 'for the gateway only',
      'keep-alive': 'timeout=99',
      'proxy-connection': 'keep-alive',
      te: 'trailers',
      trailer: 'X-Checksum',
      upgrade: 'websocket',
      'proxy-authorization': 'Basic Zm9vOmJhcg==',
    }, 'body');
    expect(response.status).toBe(200);
    const { headers } = upstream.seen.at(-1)!;
    for (const name of ['x-hop-secret', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade']) expect(headers[name], name).toBeUndefined();
    // The upstream connection is the pool's: the client's `close` applies to the client's connection only.
    expect(headers.connection).toBe('keep-alive');
    expect(headers.host).toBe(new URL(upstream.url).host);
    // End-to-end as far as a reverse proxy is concerned (http-proxy passed it on too): no proxy here consumes it.
    expect(headers['proxy-authorization']).toBe('Basic Zm9vOmJhcg==');
  });

  it('does not pass hop-by-hop response headers back, nor those the upstream Connection header names', async () => {
    upstream.script('hop-back', (_req, res) => {
      res.writeHead(200, [
        ...['Connection', 'keep-alive, X-Upstream-Hop', 'X-Upstream-Hop', 'internal', 'Keep-Alive', 'timeout=99'],
        ...['Proxy-Connection', 'keep-alive', 'Upgrade', 'h2c', 'Trailer', 'X-Checksum', 'Content-Type', 'text/plain'],
      ]);
      res.write('o'); // chunked, so that a Trailer header is allowed
      res.end('k');
    });
    const response = await rawGet(gw.url, '/api/hop-back', { authorization: `Bearer ${gw.token}` });
    expect(response).toMatchObject({ status: 200, body: 'ok' });
    for (const name of ['x-upstream-hop', 'proxy-connection', 'upgrade', 'trailer']) expect(response.headers[name], name).toBeUndefined();
    expect(response.headers['keep-alive']).not.toBe('timeout=99');
    expect(response.headers.connection).not.toMatch(/x-upstream-hop/i);
    expect(response.headers['content-type']).toBe('text/plain');
    expect(response.headers['x-request-id']).toBeDefined();
  });

  it('passes the status code, reason phrase and repeated headers such as Set-Cookie as the upstream sent them', async () => {
    upstream.script('cookies', (_req, res) => {
      res.writeHead(299, 'Partly Fine', ['Set-Cookie', 'a=1; Path=/', 'Set-Cookie', 'b=2; HttpOnly', 'X-Multi', 'one', 'X-Multi', 'two']);
      res.end('done');
    });
    const response = await rawGet(gw.url, '/api/cookies', { authorization: `Bearer ${gw.token}` });
    expect(response).toMatchObject({ status: 299, statusMessage: 'Partly Fine', body: 'done' });
    expect(response.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; HttpOnly']);
    const multi = response.rawHeaders.filter((_value, index) => index % 2 === 0 && response.rawHeaders[index]!.toLowerCase() === 'x-multi');
    expect(multi).toHaveLength(2);
  });

  it('answers with the final response when the upstream sends interim ones first (102, 103 Early Hints)', async () => {
    upstream.script('hints', (_req, res) => {
      res.writeProcessing();
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('after-hints');
    });
    const response = await rawGet(gw.url, '/api/hints', { authorization: `Bearer ${gw.token}` });
    expect(response).toMatchObject({ status: 200, body: 'after-hints' });
    expect(response.headers['content-type']).toBe('text/plain');
  });

  it('streams a Content-Length body as it is, and sends no body with a GET that has none', async () => {
    const response = await fetch(`${gw.url}/api/upload`, { method: 'PUT', headers: { authorization: `Bearer ${gw.token}` }, body: 'x'.repeat(300) });
    expect(response.status).toBe(200);
    expect(upstream.seen.at(-1)!.headers).toMatchObject({ 'content-length': '300' });
    expect(upstream.seen.at(-1)!.headers['transfer-encoding']).toBeUndefined();

    await rawGet(gw.url, '/api/plain', { authorization: `Bearer ${gw.token}` });
    expect(upstream.seen.at(-1)!.headers['content-length']).toBeUndefined();
    expect(upstream.seen.at(-1)!.headers['transfer-encoding']).toBeUndefined();
  });

  it('answers 504, rather than cutting the connection, when the upstream times out while the client is still sending', async () => {
    upstream.script('unanswered', () => {}); // reads nothing, answers nothing
    const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${gw.url}/impatient/unanswered`, { method: 'POST', headers: { authorization: `Bearer ${gw.token}`, 'content-length': '1000' }, agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy(); // the rest of the body is never sent
        });
      });
      req.on('error', reject);
      req.write('only the first bytes of it');
    });
    expect(response.status).toBe(504);
    expect(JSON.parse(response.body)).toMatchObject({ errors: [{ errorCode: 'UPSTREAM_TIMEOUT' }] });
  });

  it("prepends the upstream's base path to the raw path and query", async () => {
    await rawGet(gw.url, '/based/items?x=%2F&y', { authorization: `Bearer ${gw.token}` });
    expect(upstream.seen.at(-1)!.url).toBe('/v1/based/items?x=%2F&y');
  });

  // Two would put a listener array on every response, made at the allocation site that also makes every socket's,
  // which V8 may pretenure (ResponseClosed in src/pipeline/request-handler.ts): the drain tracker, the forwarding call
  // and the access log are told by the request handler's one listener. The hang-up test below shows the call is told.
  it("leaves a forwarded response with one close listener, the request handler's", async () => {
    const answer = await rawGet(gw.url, '/api/one-listener', { authorization: `Bearer ${gw.token}` });
    expect(answer.status).toBe(200);
    expect(closeListeners.get('/api/one-listener')).toBe(1);
  });

  it('aborts the upstream request when the client hangs up mid-response, and logs 499', async () => {
    let upstreamClosed!: Promise<{ finished: boolean }>;
    upstream.script('endless', (_req, res) => {
      upstreamClosed = closeOf(res);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first chunk, then nothing until the client gives up');
    });
    const { res } = await openResponse(gw.url, '/api/endless', gw.token);
    await once(res, 'data');
    res.destroy();
    expect(await upstreamClosed).toEqual({ finished: false });
    expect(await lastLogFor(gw, '/api/endless')).toMatchObject({ status: 499 });
  });

  it('lets backpressure from a client that reads slowly reach the upstream instead of buffering the response', async () => {
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(256 * 1024, 'z');
    const progress = { sent: 0, waitingForDrain: false, finished: false };
    upstream.script('big', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total) });
      while (progress.sent < total) {
        progress.sent += chunk.length;
        if (res.write(chunk)) continue;
        progress.waitingForDrain = true;
        await once(res, 'drain');
        progress.waitingForDrain = false;
      }
      res.end();
      progress.finished = true;
    });

    const { res } = await openResponse(gw.url, '/api/big', gw.token);
    // The client reads nothing yet. Wait until the upstream is blocked and stays blocked while the gateway
    // serves other requests (each one turns the event loop the gateway would read the upstream on).
    await eventually(() => progress.waitingForDrain, { intervalMs: 10, what: 'the upstream to be blocked on a full socket' });
    let stableFor = 0;
    for (let last = progress.sent; stableFor < 5 && !progress.finished; last = progress.sent) {
      await rawGet(gw.url, '/api/probe', { authorization: `Bearer ${gw.token}` });
      stableFor = progress.sent === last ? stableFor + 1 : 0;
    }
    expect(progress.finished).toBe(false);
    expect(progress.waitingForDrain).toBe(true);
    expect(progress.sent).toBeLessThan(total / 2);

    // Once the client reads, everything arrives.
    let received = 0;
    res.on('data', (data: Buffer) => (received += data.length));
    await once(res, 'end');
    expect(received).toBe(total);
    expect(progress.finished).toBe(true);
  });

  it('cuts a client that stops reading for longer than the route timeout, and frees the upstream', async () => {
    let upstreamClosed!: Promise<{ finished: boolean }>;
    upstream.script('unread', (_req, res) => {
      upstreamClosed = closeOf(res);
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      void writeUntilClosed(res, Buffer.alloc(256 * 1024, 'u'));
    });
    // A client that does not read does not notice the cut either (its socket is not polled): the gateway's log
    // and the upstream tell.
    const { res } = await openResponse(gw.url, '/impatient/unread', gw.token);
    expect(await lastLogFor(gw, '/impatient/unread')).toMatchObject({ status: 504, errorCode: 'UPSTREAM_TIMEOUT', detail: 'client read nothing within 300ms' });
    expect(await upstreamClosed).toEqual({ finished: false });
    res.destroy();
  });
});

describe('the undici engine with one pooled connection per upstream', () => {
  let upstream: ScriptedUpstream;
  let gw: UndiciGateway;
  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    gw = await bootUndiciGateway(
      [
        { path: '/patient/', upstream: upstream.url, timeout: '5s' },
        { path: '/impatient/', upstream: upstream.url, timeout: '300ms' },
      ],
      { connections: 1 },
    );
  });
  afterAll(async () => {
    await gw.close();
    await upstream.close();
  });

  it('frees the connection of every request a client abandons mid-response', async () => {
    for (let round = 0; round < 10; round++) {
      let upstreamClosed!: Promise<{ finished: boolean }>;
      upstream.script('abandoned', (_req, res) => {
        upstreamClosed = closeOf(res);
        res.writeHead(200);
        res.write('partial');
      });
      const { res } = await openResponse(gw.url, '/patient/abandoned', gw.token);
      await once(res, 'data');
      res.destroy();
      expect(await upstreamClosed).toEqual({ finished: false });
      // The pool's only connection must be usable again.
      expect(await rawGet(gw.url, '/patient/after', { authorization: `Bearer ${gw.token}` })).toMatchObject({ status: 200, body: 'ok' });
    }
    // Nothing left open upstream but the one kept-alive connection.
    await eventually(async () => (await upstream.openConnections()) === 1, { intervalMs: 10, what: 'one open upstream connection' });
  });

  it('counts the wait for a pooled connection in the route timeout, and never sends a request that timed out in the queue', async () => {
    let release!: () => void;
    upstream.script('holding', (_req, res) => {
      release = () => res.end('released');
    });
    const holding = rawGet(gw.url, '/patient/holding', { authorization: `Bearer ${gw.token}` });
    await eventually(() => upstream.seen.at(-1)?.url === '/patient/holding', { intervalMs: 10, what: 'the held request to reach the upstream' });

    const queued = await rawGet(gw.url, '/impatient/queued', { authorization: `Bearer ${gw.token}` });
    expect(queued.status).toBe(504);
    expect(JSON.parse(queued.body)).toMatchObject({ errors: [{ errorCode: 'UPSTREAM_TIMEOUT' }] });

    release();
    expect(await holding).toMatchObject({ status: 200, body: 'released' });
    expect(await rawGet(gw.url, '/patient/next', { authorization: `Bearer ${gw.token}` })).toMatchObject({ status: 200 });
    expect(upstream.seen.map((seen) => seen.url)).not.toContain('/impatient/queued');
  });
});
