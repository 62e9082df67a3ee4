import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the server received it, body read whole. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Answer = (request: SeenRequest, res: ServerResponse) => void;

/**
 * A real node:http server on a free loopback port standing in for the
 * gateway's OAuth endpoints: it keeps every request it received and answers
 * with whatever the test says, including nothing at all.
 */
export interface WireServer {
  url: string;
  seen: SeenRequest[];
  answer(next: Answer): void;
  close(): Promise<void>;
}

export async function startWireServer(): Promise<WireServer> {
  const seen: SeenRequest[] = [];
  let answer: Answer = (_, res) => res.writeHead(404).end();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(request);
      answer(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    answer(next) {
      answer = next;
    },
    close() {
      // Requests a test left unanswered on purpose would hold close() forever.
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** Answers with a JSON body and the given status and headers. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (_, res) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
