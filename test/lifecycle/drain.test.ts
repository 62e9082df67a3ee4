import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { issueTokens } from '../helpers/gateway.js';
import { GatewayProcess } from '../helpers/gateway-process.js';
import { startHeldUpstream, type HeldUpstream } from '../helpers/held-upstream.js';
import { eventually } from '../helpers/eventually.js';
import { refusesConnections } from '../helpers/refusing-port.js';
import { selfSignedCertificate, type SelfSigned } from '../helpers/tls-certificates.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One GET over a keep-alive agent; rejects when the connection is cut before the response is complete. */
function get(url: string, path: string, token: string, agent: HttpAgent, ca?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(`${url}${path}`, { agent, headers: { authorization: `Bearer ${token}` }, ...(ca && { ca }) }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A keep-alive connection that has served one request and now sits idle. */
async function idleConnection(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`GET /livez HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
  let received = '';
  await new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      if (received.endsWith('{"status":"live"}')) resolve();
    });
  });
  expect(received).toMatch(/^HTTP\/1\.1 200 .*Connection: keep-alive/s);
  return socket;
}

const readiness = async (adminUrl: string) => {
  const response = await fetch(`${adminUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as { status: string } };
};

/**
 * Graceful shutdown (src/ops/drain.ts) of a real `token-gateway serve`
 * process, in front of an upstream that answers only when released.
 */
describe('shutdown on SIGTERM', () => {
  let held: HeldUpstream;
  let certs: string;
  let certificate: SelfSigned;
  let proc: GatewayProcess | undefined;

  const start = (limits: Record<string, unknown>) =>
    GatewayProcess.start({
      routes: [{ path: '/held/', upstream: held.url, timeout: '30s' }],
      tls: { host: '127.0.0.1', port: 0, cert_file: certificate.cert, key_file: certificate.key },
      limits,
    });
  const httpsUrlOf = (gateway: GatewayProcess) => gateway.lines.find((line) => line.msg === 'token-gateway listening')?.httpsUrl as string;

  beforeEach(async () => {
    held = await startHeldUpstream();
  });
  beforeAll(async () => {
    certs = await mkdtemp(join(tmpdir(), 'tg-drain-certs-'));
    certificate = await selfSignedCertificate(certs, 'gateway');
  });
  afterEach(async () => {
    await proc?.stop();
    proc = undefined;
    await held.close();
  });
  afterAll(async () => {
    await rm(certs, { recursive: true, force: true });
  });

  it('loses no request in flight: each one (plain and HTTPS) completes, new connections are refused, the exit is 0', async () => {
    const gateway = (proc = await start({ shutdown_grace: '15s' }));
    const token = (await issueTokens(gateway.url)).access_token;
    const httpsUrl = httpsUrlOf(gateway);
    const plainAgent = new HttpAgent({ keepAlive: true, maxSockets: 50 });
    const tlsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 50 });
    const idle = await idleConnection(gateway.url);
    const idleClosed = new Promise((resolve) => idle.once('close', resolve));

    const inFlight = Array.from({ length: 50 }, (_, i) =>
      i % 5 === 0 ? get(httpsUrl, `/held/${i}`, token, tlsAgent, certificate.pem) : get(gateway.url, `/held/${i}`, token, plainAgent),
    );
    await eventually(() => held.held === 50, { timeoutMs: 15_000 });
    gateway.signal('SIGTERM');

    await eventually(async () => (await readiness(gateway.adminUrl)).body.status === 'draining');
    expect((await readiness(gateway.adminUrl)).status).toBe(503);
    await eventually(async () => (await refusesConnections(gateway.url)) && (await refusesConnections(httpsUrl)));
    await idleClosed;
    expect(held.held).toBe(50);

    held.release();
    const answers = await Promise.all(inFlight);
    for (const [i, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      expect(answer.headers.connection).toBe('close');
      expect(JSON.parse(answer.body)).toMatchObject({ ok: true, url: `/held/${i}` });
    }
    expect(await gateway.exit).toBe(0);
    await eventually(() => gateway.lines.filter((line) => line.msg === 'request' && line.status === 200 && line.route === '/held/').length === 50);
    expect(gateway.lines.some((line) => line.msg === 'shutdown grace over: cutting requests still in flight')).toBe(false);
    plainAgent.destroy();
    tlsAgent.destroy();
  });

  it('cuts a request that outlasts limits.shutdown_grace, logs how many were cut, and still exits 0', async () => {
    const gateway = (proc = await start({ shutdown_grace: '300ms' }));
    const token = (await issueTokens(gateway.url)).access_token;
    const agent = new HttpAgent({ keepAlive: true });
    const slow = get(gateway.url, '/held/slow', token, agent);
    const outcome = slow.then(
      () => 'answered',
      () => 'cut',
    );
    await eventually(() => held.held === 1);
    gateway.signal('SIGTERM');
    expect(await gateway.exit).toBe(0);
    await eventually(() => gateway.lines.some((line) => line.msg === 'shutdown grace over: cutting requests still in flight'));
    expect(gateway.lines.find((line) => line.msg === 'shutdown grace over: cutting requests still in flight')).toMatchObject({ level: 40, count: 1 });
    expect(await outcome).toBe('cut');
    // The cut request is not lost from the log, and its line says the gateway ended it, not its client.
    expect(gateway.lines.filter((line) => line.msg === 'request' && line.path === '/held/slow')).toMatchObject([{ status: 503, route: '/held/', errorCode: 'SERVICE_UNAVAILABLE', detail: 'cut at the end of the shutdown grace' }]);
    agent.destroy();
  });

  it('ends the grace at once on a second SIGTERM', async () => {
    const gateway = (proc = await start({ shutdown_grace: '10m' }));
    const token = (await issueTokens(gateway.url)).access_token;
    const agent = new HttpAgent({ keepAlive: true });
    const outcome = get(gateway.url, '/held/forever', token, agent).then(
      () => 'answered',
      () => 'cut',
    );
    await eventually(() => held.held === 1);
    gateway.signal('SIGTERM');
    await eventually(async () => (await readiness(gateway.adminUrl)).body.status === 'draining');
    gateway.signal('SIGTERM');
    expect(await gateway.exit).toBe(0);
    expect(await outcome).toBe('cut');
    await eventually(() => gateway.lines.some((line) => line.msg === 'second signal: ending the shutdown grace now'));
    expect(gateway.lines.filter((line) => line.msg === 'request' && line.path === '/held/forever')).toMatchObject([{ status: 503, errorCode: 'SERVICE_UNAVAILABLE' }]);
    agent.destroy();
  });
});
