import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, errorOf, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';

/**
 * Sends `parts` on one connection, `gapMs` apart, and resolves with whatever
 * comes back before the server closes (bounded by `waitMs`).
 */
function rawConversation(url: string, parts: string[], gapMs = 0, waitMs = 5_000): Promise<{ text: string; closed: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, waitMs);
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.on('error', () => {});
    parts.forEach((part, index) => setTimeout(() => socket.write(part), index * gapMs));
  });
}

/** Sends raw bytes and resolves with whatever comes back before the server closes (bounded). */
const rawExchange = (url: string, bytes: string, waitMs = 5_000) => rawConversation(url, [bytes], 0, waitMs);

describe('request limits and hostile input', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway({ config: { limits: { oauth_body_size: '1kb', json_depth: 8, headers_timeout: '300ms', request_timeout: '600ms' } } });
  });
  afterAll(() => tg.close());

  const postToken = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${tg.url}/oauth2/v1/token`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('refuses a token request body over the limit with 413', async () => {
    const response = await postToken(JSON.stringify({ username: 'x'.repeat(2_000) }));
    expect(response.headers.get('connection')).toBe('close');
    expect(await errorOf(response)).toMatchObject({ status: 413, errorCode: 'PAYLOAD_TOO_LARGE' });
  });

  it('refuses deeply nested JSON as a JSON threat (SPEC 7) before parsing it', async () => {
    const response = await postToken(`{"username":${'['.repeat(500)}${']'.repeat(500)}}`);
    expect(await errorOf(response)).toMatchObject({ status: 401, errorCode: 'JSON_THREAT', body: { errors: [{ message: 'Access to the requested resource is not allowed' }] } });
  });

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
});

describe('clients that hang up', () => {
  it('logs a client abort mid-body as a 499 request, not as a server failure', async () => {
    const tg = await bootGateway();
    try {
      const { hostname, port } = new URL(tg.url);
      await new Promise<void>((done) => {
        const socket = connect(Number(port), hostname, () => {
          socket.write('POST /oauth2/v1/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user');
          socket.destroy();
        });
        socket.on('close', () => done());
      });
      await eventually(() => tg.logs.some((line) => line.msg === 'request'), { what: 'the access line of the abandoned request' });
      expect(tg.logs.find((line) => line.msg === 'request')).toMatchObject({ status: 499, errorCode: 'MALFORMED_REQUEST' });
      expect(tg.logs.filter((line) => (line.level as number) >= 50)).toEqual([]);
    } finally {
      await tg.close();
    }
  });
});

describe('answering a request whose body was not read', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  it('reads and discards a small body refused before it mattered, answers, and keeps the connection (no reset)', async () => {
    const { text } = await rawConversation(
      tg.url,
      [
        'POST /business/score/v2/directors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n',
        '{"a":"bc"}',
        'GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      ],
      100,
    );
    const [refusal, next] = text.split(/(?=HTTP\/1\.1 )/);
    expect(refusal).toMatch(/^HTTP\/1\.1 401 /);
    expect(refusal).not.toMatch(/^connection: close/im);
    expect(next).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers with the connection closed when the announced body does not come (bounded wait)', async () => {
    const { text, closed } = await rawConversation(tg.url, ['POST /business/score/v2/directors HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n']);
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(text).toMatch(/^connection: close/im);
    expect(closed).toBe(true);
  });
});
