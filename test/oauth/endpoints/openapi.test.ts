import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, errorOf, type TestGateway } from '../../helpers/gateway.js';
import { send } from '../openapi/exchange.js';

/** Serving the document: its media type, caching, CORS, HEAD, and the link that names it. */
describe('GET /oauth2/v1/openapi.json (the endpoint)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await bootGateway();
  });
  afterAll(() => gw.close());

  it('is the same document on every request, with its media type, and readable from any origin', async () => {
    const path = '/oauth2/v1/openapi.json';
    const [first, second] = await Promise.all([send(gw.url, { method: 'GET', path }), send(gw.url, { method: 'GET', path })]);
    expect(first.body).toBe(second.body);
    expect(first.headers['content-type']).toBe('application/vnd.oai.openapi+json;version=3.1');
    expect(first.headers['access-control-allow-origin']).toBe('*');
    const head = await send(gw.url, { method: 'HEAD', path });
    expect(head).toMatchObject({ status: 200, body: '' });
  });

  it('is cacheable for an hour, like the discovery document', async () => {
    const response = await fetch(`${gw.url}/oauth2/v1/openapi.json`);
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(((await response.json()) as { openapi: string }).openapi).toMatch(/^3\.1\./);
  });

  it('refuses POST with 405 and Allow: GET, HEAD', async () => {
    const response = await fetch(`${gw.url}/oauth2/v1/openapi.json`, { method: 'POST' });
    expect(await errorOf(response)).toMatchObject({ status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });

  it('is linked from the discovery document as its service description (RFC 8631)', async () => {
    const response = await send(gw.url, { method: 'GET', path: '/.well-known/openid-configuration' });
    expect(response.headers.link).toBe(`<${gw.gateway.context.issuer}/oauth2/v1/openapi.json>; rel="service-desc"`);
  });
});
