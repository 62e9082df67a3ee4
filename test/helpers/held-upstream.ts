import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeldUpstream {
  url: string;
  /** Requests received and not answered yet. */
  readonly held: number;
  /** Answers every request held so far (and every later one at once), each with a JSON body naming its path. */
  release(): void;
  close(): Promise<void>;
}

/**
 * An upstream that answers only when the test says so: "a slow upstream"
 * without a timing to guess, so that a test can act (reload, SIGTERM) while
 * requests are certainly in flight.
 */
export async function startHeldUpstream(): Promise<HeldUpstream> {
  const waiting: Array<{ res: ServerResponse; body: string }> = [];
  let released = false;
  const answer = ({ res, body }: { res: ServerResponse; body: string }) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      // A body big enough to take more than one write, so that a cut response would show.
      const held = { res, body: JSON.stringify({ ok: true, url: req.url, padding: 'x'.repeat(32_000) }) };
      if (released) answer(held);
      else waiting.push(held);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get held() {
      return waiting.length;
    },
    release() {
      released = true;
      for (const held of waiting.splice(0)) answer(held);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
