import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';

/** The admin listener's own handling of requests no route would see: what a port scanner or a confused client sends. */

let tg: TestGateway | undefined;
afterEach(async () => {
  await tg?.close();
  tg = undefined;
});

/** One raw HTTP/1.1 request, as fetch would refuse to send it; resolves with the status line. */
function rawRequest(baseUrl: string, requestLine: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''), () => socket.write(`${requestLine}\r\nHost: admin\r\nConnection: close\r\n\r\n`));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}

describe('admin listener', () => {
  it('answers 400 to a request target that is not a path (absolute-form, unparsable) and keeps serving', async () => {
    tg = await bootGateway();
    const adminUrl = tg.gateway.adminUrl!;
    expect(await rawRequest(adminUrl, 'GET http://[/ HTTP/1.1')).toBe('HTTP/1.1 400 Bad Request');
    expect(await rawRequest(adminUrl, 'GET * HTTP/1.1')).toBe('HTTP/1.1 400 Bad Request');
    expect((await fetch(`${adminUrl}/livez`)).status).toBe(200);
  });
});
