import { connect, type Socket } from 'node:net';

// Raw HTTP/1.1 on a socket: what fetch would never send (half a request, garbage, a body that comes late).

/** Whatever comes back on `socket` before the server closes it, bounded by `waitMs` (then `closed: false`). */
function collectUntilClosed(socket: Socket, waitMs: number): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, waitMs);
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.on('error', () => {});
  });
}

/**
 * Sends `parts` on one connection, `gapMs` apart, and resolves with whatever
 * comes back before the server closes (bounded by `waitMs`).
 */
export function rawConversation(url: string, parts: string[], gapMs = 0, waitMs = 5_000): Promise<{ text: string; closed: boolean }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const answer = collectUntilClosed(socket, waitMs);
  // The gap paces a client whose body comes after its headers (the behaviour under test), not a wait for the server.
  parts.forEach((part, index) => setTimeout(() => socket.write(part), index * gapMs));
  return answer;
}

/** Sends raw bytes and resolves with whatever comes back before the server closes (bounded). */
export const rawExchange = (url: string, bytes: string, waitMs = 5_000) => rawConversation(url, [bytes], 0, waitMs);

/**
 * Sends `bytes`, then half-closes the socket (shutdown of its write side, as `nc -N` does), and resolves with
 * whatever comes back before the server closes (bounded by `waitMs`).
 */
export function halfClosedExchange(url: string, bytes: string, waitMs = 5_000): Promise<{ text: string; closed: boolean }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname, () => socket.end(bytes));
  return collectUntilClosed(socket, waitMs);
}
