import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';

const HEALTHCHECK = resolve('dist/deploy/healthcheck.js');

function probe(url: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [HEALTHCHECK], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TOKEN_GATEWAY_HEALTHCHECK_URL: url } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => done({ code, stderr }));
  });
}

describe('the image health check (node dist/deploy/healthcheck.js)', () => {
  let tg: TestGateway;
  let failing: Server;
  beforeAll(async () => {
    tg = await bootGateway();
    failing = createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((done) => failing.listen(0, '127.0.0.1', done));
  });
  afterAll(async () => {
    await tg.close();
    failing.close();
  });

  it("passes while the admin listener's /livez answers", async () => {
    expect(await probe(`${tg.gateway.adminUrl}/livez`)).toEqual({ code: 0, stderr: '' });
  });

  it('fails on an error status, saying which', async () => {
    const { port } = failing.address() as AddressInfo;
    const { code, stderr } = await probe(`http://127.0.0.1:${port}/livez`);
    expect(code).toBe(1);
    expect(stderr).toContain('answered 503');
  });

  it('fails when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const { port } = closed.address() as AddressInfo;
    await new Promise((done) => closed.close(done));
    expect((await probe(`http://127.0.0.1:${port}/livez`)).code).toBe(1);
  });
});
