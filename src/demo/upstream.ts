import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * DEMO ONLY: a stand-in for the Business Score API so that `npm start` shows
 * a protected call end to end. It answers any path with a small JSON document
 * that echoes what the gateway forwarded (never the Authorization header).
 */
export function startDemoUpstream(port: number, host = '127.0.0.1'): Promise<Server> {
  const server = createServer((req, res) => {
    const body = JSON.stringify({
      demo: true,
      path: req.url,
      requestId: req.headers['x-request-id'],
      forwardedFor: req.headers['x-forwarded-for'],
      directors: [
        { name: 'Ada Example', role: 'Director', appointed: '2019-04-01' },
        { name: 'Alan Sample', role: 'Secretary', appointed: '2021-09-15' },
      ],
    });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error) => reject(new DemoUpstreamError(listenProblem(error, host, port))));
    server.listen(port, host, () => resolve(server));
  });
}

/** What stops the demo upstream, in one line an operator can act on (no stack trace). */
export class DemoUpstreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DemoUpstreamError';
  }
}

/** The demo's port: DEMO_UPSTREAM_PORT, 8081 by default (gateway.yaml's demo route points there). */
export function demoUpstreamPort(env: NodeJS.ProcessEnv): number {
  const text = env.DEMO_UPSTREAM_PORT || '8081';
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new DemoUpstreamError(`DEMO_UPSTREAM_PORT must be a whole number from 0 to 65535, got "${text}"`);
  return port;
}

function listenProblem(error: NodeJS.ErrnoException, host: string, port: number): string {
  const where = `cannot listen on ${host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return `${where}: EADDRINUSE: another process listens there (an earlier npm start?): stop it, or set DEMO_UPSTREAM_PORT to a free port and the demo route's upstream in gateway.yaml to match`;
    case 'EACCES':
      return `${where}: EACCES: ports below 1024 need privileges: set DEMO_UPSTREAM_PORT to a port above 1023`;
    case 'EADDRNOTAVAIL':
      return `${where}: EADDRNOTAVAIL: ${host} is not an address of this machine: fix DEMO_UPSTREAM_HOST`;
    default:
      return `${where}: ${error.code ?? error.message}`;
  }
}

export const addressOf = (server: Server): string => {
  const { address, port } = server.address() as AddressInfo;
  return `http://${address}:${port}`;
};
