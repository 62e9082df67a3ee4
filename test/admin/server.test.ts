import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayProcess } from '../helpers/gateway-process.js';

/** One raw HTTP/1.1 request (a target `fetch` would never send); resolves with the status line. */
function rawRequest(url: string, target: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('close', () => resolve(received.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}

/** The admin listener (src/ops/admin-server.ts) in a real `serve` process: what a caller sends never ends the process. */
describe('admin listener', () => {
  let proc: GatewayProcess;
  beforeAll(async () => {
    proc = await GatewayProcess.start({});
  });
  afterAll(async () => {
    await proc.stop();
  });

  it.each(['http://[', '//[', 'http://admin:99999/metrics', '*'])('answers a request target it cannot parse (%s) with 400, and keeps serving', async (target) => {
    expect(await rawRequest(proc.adminUrl, target)).toMatch(/^HTTP\/1\.1 400 /);
    expect(proc.alive).toBe(true);
    expect((await fetch(`${proc.adminUrl}/livez`)).status).toBe(200);
  });

  it('still serves an absolute-form target naming one of its paths', async () => {
    expect(await rawRequest(proc.adminUrl, `${proc.adminUrl}/livez`)).toMatch(/^HTTP\/1\.1 200 /);
  });
});
