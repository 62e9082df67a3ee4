import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue } from '../../src/errors/catalogue.js';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';
import { rawConversation, rawExchange } from '../helpers/raw-http.js';

/** The head and the parsed envelope of one raw answer. */
function answerOf(text: string): { head: string; body: Record<string, unknown> } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { head, body: JSON.parse(body) as Record<string, unknown> };
}

describe('CONNECT, a method the gateway does not serve', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  const accessLines = () => tg.logs.filter((line) => line.msg === 'request');

  it.each([
    ['an authority-form target', 'CONNECT upstream.example:443 HTTP/1.1\r\nHost: upstream.example:443\r\n\r\n', ''],
    ['a path', 'CONNECT /business/score/v2/x HTTP/1.1\r\nHost: x\r\n\r\n', '/business/score/v2/x'],
  ])('answers %s with 405 METHOD_NOT_ALLOWED in the envelope, closes the connection, and logs it', async (_target, request, path) => {
    const before = accessLines().length;
    const { text, closed } = await rawExchange(tg.url, request);
    expect(closed).toBe(true);
    const { head, body } = answerOf(text);
    expect(head).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(head).toContain('\r\nConnection: close');
    expect(head).toContain('\r\nContent-Type: application/json; charset=utf-8');
    expect(head).not.toContain('\r\nAllow:');
    const requestId = /\r\nX-Request-Id: (\S+)/.exec(head)?.[1];
    expect(body).toEqual({
      success: false,
      requestId,
      errors: [{ errorCode: 'METHOD_NOT_ALLOWED', errorType: 'Method Not Allowed', message: catalogue.METHOD_NOT_ALLOWED.message }],
    });
    await eventually(() => accessLines().length > before, { what: 'the access line of the CONNECT' });
    expect(accessLines().at(-1)).toMatchObject({ requestId, method: 'CONNECT', path, status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
    expect(tg.upstream.seen.filter((seen) => seen.method === 'CONNECT')).toEqual([]);
  });

  it('sends Allow when the target is one of the gateway endpoints, and keeps the client request id', async () => {
    const { text } = await rawExchange(tg.url, 'CONNECT /oauth2/v1/token HTTP/1.1\r\nHost: x\r\nX-Request-Id: connect-request-1\r\n\r\n');
    const { head, body } = answerOf(text);
    expect(head).toContain('\r\nAllow: POST\r\n');
    expect(body).toMatchObject({ requestId: 'connect-request-1' });
  });

  it('closes the connection of a client that sends tunnel bytes and never closes, within a bound', async () => {
    const started = Date.now();
    const { text, closed } = await rawConversation(tg.url, ['CONNECT upstream.example:443 HTTP/1.1\r\nHost: x\r\n\r\n', 'tunnel bytes'], 50, 4_000);
    expect(text).toMatch(/^HTTP\/1\.1 405 /);
    expect(closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await fetch(`${tg.url}/livez`)).status).toBe(200);
  });
});
