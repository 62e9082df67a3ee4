import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TestUpstream {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A real upstream that records what reaches it. Paths ending in `/slow`
 * never answer (for 504 tests), `/stalled` stops after its headers,
 * `/truncated` dies mid-body, `/trickle` sends its body in 4 chunks 150 ms
 * apart; everything else
 * gets a small JSON echo.
 */
export async function startUpstream(): Promise<TestUpstream> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url?.endsWith('/slow')) return;
      if (req.url?.endsWith('/stalled')) {
        res.writeHead(200, { 'content-length': '1000' });
        res.write('partial');
        return;
      }
      if (req.url?.endsWith('/trickle')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        let sent = 0;
        const next = setInterval(() => {
          res.write(`chunk ${++sent}\n`);
          if (sent === 4) {
            clearInterval(next);
            res.end();
          }
        }, 150);
        res.on('close', () => clearInterval(next));
        return;
      }
      if (req.url?.endsWith('/truncated')) {
        res.writeHead(200, { 'content-length': '1000' });
        // Cut once the head and the first bytes are on the wire (the write's callback), not after a guessed delay.
        res.write('partial', () => res.socket?.destroy());
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, url: req.url, bytes: body.length }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
