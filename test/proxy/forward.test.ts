import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, callProtected, errorOf, issueTokens, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';

/** A raw request, so the test controls chunking and headers that fetch would normalise. */
function send(url: string, options: { method?: string; path: string; headers?: Record<string, string>; chunks?: string[] }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    // Options, not a URL string: WHATWG URL parsing would resolve the dot segments these tests send.
    const req = request({ hostname, port, path: options.path, method: options.method ?? 'POST', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

/** Resolves 'complete' or 'cut' (never hangs: the gateway must end it). */
function outcomeOf(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; outcome: 'complete' | 'cut' }> {
  return new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    let status = 0;
    const req = request({ hostname, port, path, headers }, (res) => {
      status = res.statusCode ?? 0;
      res.on('data', () => {});
      res.on('end', () => resolve({ status, outcome: 'complete' }));
      res.on('error', () => resolve({ status, outcome: 'cut' }));
    });
    req.on('error', () => resolve({ status, outcome: 'cut' }));
    req.end();
  });
}

const lastLogFor = (tg: TestGateway, path: string) =>
  eventually(() => tg.logs.filter((entry) => entry.msg === 'request' && entry.path === path).at(-1), { what: `the access line for ${path}` });

describe('forwarding to the upstream', () => {
  let tg: TestGateway;
  let token: string;
  beforeAll(async () => {
    tg = await bootGateway({
      config: (upstream) => ({
        limits: { body_size: '1kb' },
        routes: [
          { path: '/business/score/v2/', upstream, timeout: '300ms' },
          { path: '/down', upstream: 'http://127.0.0.1:9', timeout: '1s' },
        ],
      }),
    });
    token = (await issueTokens(tg.url)).access_token;
  });
  afterAll(() => tg.close());

  it('forwards the path and query unchanged with X-Forwarded-* and the request id', async () => {
    const response = await fetch(`${tg.url}/business/score/v2/directors?company=123&x=%2F`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'trace-abc-123456', accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('trace-abc-123456');
    const seen = tg.upstream.seen.at(-1)!;
    expect(seen.url).toBe('/business/score/v2/directors?company=123&x=%2F');
    expect(seen.headers['x-request-id']).toBe('trace-abc-123456');
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen.headers['x-forwarded-proto']).toBe('http');
    expect(seen.headers['x-forwarded-host']).toBe(new URL(tg.url).host);
    expect(seen.headers.accept).toBe('application/json');
  });

  it('generates a request id when the client sends none (or an unusable one)', async () => {
    const response = await fetch(`${tg.url}/business/score/v2/directors`, { headers: { authorization: `Bearer ${token}`, 'x-request-id': 'bad id\twith junk' } });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(tg.upstream.seen.at(-1)!.headers['x-request-id']).toBe(response.headers.get('x-request-id'));
  });

  it('forwards a request body within the limit', async () => {
    const response = await send(tg.url, { path: '/business/score/v2/search', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, chunks: ['{"name":', '"Acme"}'] });
    expect(response.status).toBe(200);
    expect(tg.upstream.seen.at(-1)!.body).toBe('{"name":"Acme"}');
  });

  it('answers 502 in the envelope when the upstream is down', async () => {
    const response = await callProtected(tg.url, token, '/down/anything');
    expect(await errorOf(response)).toMatchObject({ status: 502, errorCode: 'UPSTREAM_UNAVAILABLE', body: { errors: [{ errorType: 'Bad Gateway' }] } });
  });

  it('answers 504 in the envelope when the upstream does not answer in time', async () => {
    const response = await callProtected(tg.url, token, '/business/score/v2/slow');
    expect(await errorOf(response)).toMatchObject({ status: 504, errorCode: 'UPSTREAM_TIMEOUT', body: { errors: [{ errorType: 'Gateway Timeout' }] } });
  });

  it('cuts the client connection when the upstream dies mid-body, and logs it as a 502', async () => {
    const result = await outcomeOf(tg.url, '/business/score/v2/truncated', { authorization: `Bearer ${token}` });
    expect(result).toEqual({ status: 200, outcome: 'cut' });
    expect(await lastLogFor(tg, '/business/score/v2/truncated')).toMatchObject({ status: 502, errorCode: 'UPSTREAM_UNAVAILABLE' });
    expect((await callProtected(tg.url, token)).status).toBe(200);
  });

  it('cuts the client connection when the upstream stalls after its headers, and logs it as a 504', async () => {
    const result = await outcomeOf(tg.url, '/business/score/v2/stalled', { authorization: `Bearer ${token}` });
    expect(result).toEqual({ status: 200, outcome: 'cut' });
    expect(await lastLogFor(tg, '/business/score/v2/stalled')).toMatchObject({ status: 504, errorCode: 'UPSTREAM_TIMEOUT' });
  });

  it('lets a body run longer than the route timeout while no silence between its chunks does', async () => {
    // 4 chunks 150 ms apart: 600 ms in all against the route's 300 ms, which bounds the silence, not the whole body.
    const response = await fetch(`${tg.url}/business/score/v2/trickle`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('chunk 1\nchunk 2\nchunk 3\nchunk 4\n');
    expect(await lastLogFor(tg, '/business/score/v2/trickle')).toMatchObject({ status: 200 });
  });

  it('applies the upstream timeout to requests sent with Expect: 100-continue', async () => {
    const response = await send(tg.url, {
      path: '/business/score/v2/slow',
      headers: { authorization: `Bearer ${token}`, expect: '100-continue', 'content-type': 'application/json' },
      chunks: ['{}'],
    });
    expect(response.status).toBe(504);
    expect(tg.upstream.seen.at(-1)!.headers.expect).toBeUndefined();
  });

  it('does not let a client forge X-Forwarded-Proto/-Host, and appends to X-Forwarded-For', async () => {
    await fetch(`${tg.url}/business/score/v2/directors`, {
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '6.6.6.6', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' },
    });
    const seen = tg.upstream.seen.at(-1)!;
    expect(seen.headers['x-forwarded-for']).toBe('6.6.6.6, 127.0.0.1');
    expect(seen.headers['x-forwarded-proto']).toBe('http');
    expect(seen.headers['x-forwarded-host']).toBe(new URL(tg.url).host);
    expect(seen.headers['x-forwarded-port']).toBe(new URL(tg.url).port);
  });

  it('matches routes on the decoded path and forwards the raw one', async () => {
    expect((await callProtected(tg.url, token, '/business/score/%76%32/directors')).status).toBe(200);
    expect(tg.upstream.seen.at(-1)!.url).toBe('/business/score/%76%32/directors');
  });

  it('refuses an announced oversize body with 413 before anything reaches the upstream', async () => {
    const seenBefore = tg.upstream.seen.length;
    const response = await send(tg.url, { path: '/business/score/v2/upload', headers: { authorization: `Bearer ${token}`, 'content-length': '2048' }, chunks: ['x'.repeat(2048)] });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ errors: [{ errorCode: 'PAYLOAD_TOO_LARGE' }] });
    expect(tg.upstream.seen.length).toBe(seenBefore);
  });

  it('cuts a chunked body at the limit with 413', async () => {
    const response = await send(tg.url, { path: '/business/score/v2/upload', headers: { authorization: `Bearer ${token}` }, chunks: Array.from({ length: 8 }, () => 'y'.repeat(512)) });
    expect(response.status).toBe(413);
  });

  it('validates before forwarding: a bad token never reaches the upstream, whatever the body', async () => {
    const seenBefore = tg.upstream.seen.length;
    const response = await send(tg.url, { path: '/business/score/v2/upload', headers: { authorization: 'Bearer nope', 'content-type': 'application/json' }, chunks: ['{}'] });
    expect(response.status).toBe(401);
    expect(tg.upstream.seen.length).toBe(seenBefore);
  });

  it.each([
    ['/business/score/v2/../../admin', 'a dot-dot segment'],
    ['/business/score/v2/%2e%2e/admin', 'an encoded dot-dot segment'],
    ['/business/score/v2/a%2Fb', 'an encoded slash'],
    ['/business/score/v2/%zz', 'broken percent-encoding'],
    ['/business/score/v2/..;/admin', "Tomcat's dot segment with a path parameter"],
    ['/business/score/v2/%252e%252e/admin', 'a double-encoded dot-dot segment'],
    ['/business/score/v2/a%255cb', 'a double-encoded backslash'],
  ])('refuses %s (%s) with 400', async (path) => {
    const response = await send(tg.url, { method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ errors: [{ errorCode: 'MALFORMED_REQUEST' }] });
  });

  it.each(['/business/score/v20/directors', '/business', '/unknown', '/oauth2/v1/token/'])('answers %s with 404 (routes match on segment boundaries)', async (path) => {
    expect(await errorOf(await callProtected(tg.url, token, path))).toMatchObject({ status: 404, errorCode: 'NOT_FOUND' });
  });

  it('routes the prefix itself without its trailing slash', async () => {
    expect((await callProtected(tg.url, token, '/business/score/v2')).status).toBe(200);
  });
});
