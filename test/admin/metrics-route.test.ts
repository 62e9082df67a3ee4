import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsRoute } from '../../src/admin/metrics-route.js';
import { startAdminServer, type AdminServer } from '../../src/admin/server.js';

describe('GET /metrics (the exposition route)', () => {
  let server: AdminServer;
  let scrapes = 0;
  beforeAll(async () => {
    const route = metricsRoute(async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', text: `scrapes_total ${++scrapes}\nnon_ascii_label{x="é"} 1\n` }));
    server = await startAdminServer(new Map([['/metrics', route]]), '127.0.0.1', 0, () => undefined);
  });
  afterAll(() => server.close());

  it("answers the registry's exposition with its Content-Type, its byte length, never cached, fresh on every scrape", async () => {
    const first = await fetch(`${server.url}/metrics`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(first.headers.get('cache-control')).toBe('no-store');
    const text = await first.text();
    expect(Number(first.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(text).toContain('scrapes_total 1');
    expect(await (await fetch(`${server.url}/metrics`)).text()).toContain('scrapes_total 2');
  });

  it('answers only GET', async () => {
    const response = await fetch(`${server.url}/metrics`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });
});
