// Peer: Node `http` server + the original `http-proxy` 1.18 with a keep-alive agent; no authentication.
//   node bench/peers/node-http-proxy.mjs <port> <upstream-url>
import { Agent, createServer } from 'node:http';
import httpProxy from 'http-proxy';

const [port, upstream] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true, maxFreeSockets: 64, scheduling: 'lifo' });
const proxy = httpProxy.createProxyServer({ target: upstream, agent });
proxy.on('error', (_error, _req, res) => {
  if (!res.headersSent) res.writeHead(502);
  res.end();
});
createServer((req, res) => proxy.web(req, res)).listen(Number(port), '127.0.0.1');
