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
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

export const addressOf = (server: Server): string => {
  const { address, port } = server.address() as AddressInfo;
  return `http://${address}:${port}`;
};
