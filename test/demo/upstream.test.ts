import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { addressOf, DemoUpstreamError, demoUpstreamPort, startDemoUpstream } from '../../src/demo/upstream.js';

const open: Server[] = [];
afterEach(() => Promise.all(open.splice(0).map((server) => new Promise((done) => server.close(done)))));

describe('the demo upstream (DEMO ONLY)', () => {
  it('answers any path with a JSON document echoing what the gateway forwarded, never the Authorization header', async () => {
    const server = await startDemoUpstream(0);
    open.push(server);
    const response = await fetch(`${addressOf(server)}/any/path?x=1`, {
      headers: { authorization: 'Bearer secret-token', 'x-request-id': 'req-1', 'x-forwarded-for': '203.0.113.7' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ demo: true, path: '/any/path?x=1', requestId: 'req-1', forwardedFor: '203.0.113.7' });
    expect(text).not.toContain('secret-token');
  });

  it('fails with one line naming the address and what to do when the port is taken', async () => {
    const first = await startDemoUpstream(0);
    open.push(first);
    const port = Number(new URL(addressOf(first)).port);
    const failure = await startDemoUpstream(port).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DemoUpstreamError);
    expect((failure as Error).message).toMatch(new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE: .*set DEMO_UPSTREAM_PORT to a free port`));
  });

  it('names the host to fix when it is not an address of this machine', async () => {
    const failure = await startDemoUpstream(0, '192.0.2.1').catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(/^cannot listen on 192\.0\.2\.1:0: EADDRNOTAVAIL: .*fix DEMO_UPSTREAM_HOST$/);
  });
});

describe('DEMO_UPSTREAM_PORT', () => {
  it.each([
    [undefined, 8081],
    ['', 8081],
    ['0', 0],
    ['9000', 9000],
    ['65535', 65535],
  ])('reads %j as port %d', (text, port) => {
    expect(demoUpstreamPort(text === undefined ? {} : { DEMO_UPSTREAM_PORT: text })).toBe(port);
  });

  it.each(['eighty', '-1', '65536', '80.5', ' 80'])('refuses %j', (text) => {
    expect(() => demoUpstreamPort({ DEMO_UPSTREAM_PORT: text })).toThrow(`DEMO_UPSTREAM_PORT must be a whole number from 0 to 65535, got "${text}"`);
  });
});
