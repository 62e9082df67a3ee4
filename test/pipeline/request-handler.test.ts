import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, errorOf, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';
import { rawConversation, rawExchange } from '../helpers/raw-http.js';

describe('the request handler and hostile input', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway({ config: { limits: { oauth_body_size: '1kb', json_depth: 8 } } });
  });
  afterAll(() => tg.close());

  const postToken = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${tg.url}/oauth2/v1/token`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('refuses deeply nested JSON as a JSON threat (SPEC 7) before parsing it', async () => {
    const response = await postToken(`{"username":${'['.repeat(500)}${']'.repeat(500)}}`);
    expect(await errorOf(response)).toMatchObject({ status: 401, errorCode: 'JSON_THREAT', body: { errors: [{ message: 'Access to the requested resource is not allowed' }] } });
  });
  it('answers a malformed request line without crashing', async () => {
    const { text } = await rawExchange(tg.url, 'BLAH BLAH BLAH\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400/);
    expect((await fetch(`${tg.url}/oauth2/v1/keys`)).status).toBe(200);
  });
  it('refuses an absolute-form request target with 400', async () => {
    const { text } = await rawExchange(tg.url, 'GET http://evil.example/oauth2/v1/keys HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400/);
    expect(text).toContain('MALFORMED_REQUEST');
  });
  it('never answers 500 to garbage on any endpoint', async () => {
    const bodies = ['', '\u0000\u0001', '{"a":1', '{"username":{"$ne":null},"password":[]}', '{"__proto__":{"admin":true}}', '🙂'.repeat(100)];
    const paths = ['/oauth2/v1/token', '/oauth2/v1/revokeToken', '/business/score/v2/x', '/.well-known/openid-configuration'];
    for (const path of paths) {
      for (const body of bodies) {
        const response = await fetch(`${tg.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', client_id: 'x', client_secret: 'y', token: 'z', grant_type: 'refresh_token', refresh_token: 'r' }, body });
        expect(response.status, `${path} ${JSON.stringify(body)}`).toBeLessThan(500);
        await response.arrayBuffer();
      }
    }
  });

  describe('a Content-Type that names more than one media type', () => {
    const post = (contentTypeLines: string, path = '/business/score/v2/typed') =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\n${contentTypeLines}Authorization: Bearer x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`;

    it.each([
      ['two Content-Type lines (joined by the listener)', 'Content-Type: application/json\r\nContent-Type: application/json\r\n'],
      ['one line listing two types', 'Content-Type: application/json, text/plain\r\n'],
    ])('is 400 MALFORMED_REQUEST before any policy or upstream: %s', async (_case, lines) => {
      const seen = tg.upstream.seen.length;
      const { text } = await rawExchange(tg.url, post(lines));
      expect(text).toMatch(/^HTTP\/1\.1 400 /);
      expect(text).toContain('"errorCode":"MALFORMED_REQUEST"');
      expect(tg.upstream.seen.length).toBe(seen);
    });

    it('is 400 on the token endpoint too', async () => {
      const { text } = await rawExchange(tg.url, post('Content-Type: application/json\r\nContent-Type: application/json\r\n', '/oauth2/v1/token'));
      expect(text).toMatch(/^HTTP\/1\.1 400 /);
    });

    it('leaves a comma inside a parameter alone (a quoted multipart boundary): the Bearer check answers next', async () => {
      const { text } = await rawExchange(tg.url, post('Content-Type: multipart/form-data; boundary="a,b"\r\n'));
      expect(text).toMatch(/^HTTP\/1\.1 401 /);
    });
  });

  describe('a Transfer-Encoding other than chunked alone (RFC 9112 6.1)', () => {
    const chunkedBody = '5\r\nhello\r\n0\r\n\r\n';
    const request = (path: string, codings: string) =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer x\r\nTransfer-Encoding: ${codings}\r\n\r\n${chunkedBody}`;

    it.each([
      ['a route', '/business/score/v2/coded', 'gzip, chunked'],
      ['the token endpoint', '/oauth2/v1/token', 'GZIP ,chunked'],
      ['no route at all', '/nowhere', 'deflate, chunked'],
    ])('is 501 UNSUPPORTED_TRANSFER_CODING on %s, before routing, with the connection closed', async (_where, path, codings) => {
      const seen = tg.upstream.seen.length;
      const { text, closed } = await rawExchange(tg.url, request(path, codings));
      expect(text).toMatch(/^HTTP\/1\.1 501 Not Implemented\r\n/);
      expect(text).toMatch(/\r\nConnection: close\r\n/i);
      expect(text).toContain('"errorCode":"UNSUPPORTED_TRANSFER_CODING"');
      expect(text).toContain(`"message":"The request's Transfer-Encoding is not supported"`);
      expect(closed).toBe(true);
      expect(tg.upstream.seen.length).toBe(seen);
    });

    it('is logged with its code', async () => {
      await rawExchange(tg.url, request('/business/score/v2/logged', 'gzip, chunked'));
      const logged = () => tg.logs.some((line) => line.msg === 'request' && line.path === '/business/score/v2/logged');
      await eventually(logged, { what: 'the access line of the refused request' });
      expect(tg.logs.filter((line) => line.msg === 'request').at(-1)).toMatchObject({ path: '/business/score/v2/logged', status: 501, errorCode: 'UNSUPPORTED_TRANSFER_CODING' });
    });

    it('leaves chunked alone, in any case and spacing, to the rest of the pipeline', async () => {
      for (const codings of ['chunked', ' Chunked ']) {
        const { text } = await rawConversation(tg.url, [request('/business/score/v2/plain', codings)], 0, 1_000);
        expect(text, codings).toMatch(/^HTTP\/1\.1 401 /);
      }
    });
  });
});
