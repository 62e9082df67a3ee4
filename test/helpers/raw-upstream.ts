import { request } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** What the upstream writes for one request: bytes, then it closes the connection (or resets it). */
export interface RawAnswer {
  bytes: Buffer | string;
  /** Reset instead of a clean close after the bytes. */
  reset?: boolean;
}

export interface RawUpstream {
  url: string;
  /** The answer for requests whose path ends in `/<name>`. */
  answer(name: string, answer: RawAnswer): void;
  close(): Promise<void>;
}

/**
 * An upstream that answers with exactly the bytes a test gives it, for
 * answers no HTTP server library would write: bad status lines, invalid
 * headers, wrong framing, early closes. Every answer closes its connection,
 * so one malformed answer cannot leak into the next.
 */
export async function startRawUpstream(): Promise<RawUpstream> {
  const answers = new Map<string, RawAnswer>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const target = head.slice(0, head.indexOf('\r\n')).split(' ')[1] ?? '';
      const name = target.split('?')[0]!.split('/').at(-1)!;
      const answer = answers.get(name) ?? { bytes: 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok' };
      socket.removeAllListeners('data');
      socket.write(answer.bytes, () => (answer.reset ? socket.resetAndDestroy() : socket.end()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answer: (name, answer) => void answers.set(name, answer),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** How a client saw one answer from the gateway. */
export type ClientOutcome =
  | { kind: 'complete'; status: number; statusMessage: string; headers: Record<string, string | string[] | undefined>; body: Buffer }
  /** The head arrived, then the connection was cut: allowed only once the upstream's own answer had started. */
  | { kind: 'cut-after-head'; status: number }
  /** Nothing, or something a strict HTTP parser refuses: never acceptable from the gateway. */
  | { kind: 'no-answer' | 'malformed'; detail: string };

/** One request, read with node's strict parser; never hangs past 5 s. */
export function outcomeOf(url: string, path: string, authorization: string): Promise<ClientOutcome> {
  return new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    let status = 0;
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ kind: 'no-answer', detail: 'no answer within 5 s' });
    }, 5_000);
    const done = (outcome: ClientOutcome) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = request({ hostname, port, path, agent: false, headers: { authorization } }, (res) => {
      status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done({ kind: 'complete', status, statusMessage: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', () => done({ kind: 'cut-after-head', status }));
      res.on('aborted', () => done({ kind: 'cut-after-head', status }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (status) return done({ kind: 'cut-after-head', status });
      done({ kind: error.code?.startsWith('HPE_') ? 'malformed' : 'no-answer', detail: `${error.code}: ${error.message}` });
    });
    req.end();
  });
}
