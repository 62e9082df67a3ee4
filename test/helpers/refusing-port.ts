import { connect } from 'node:net';

/**
 * A loopback port where a connection is refused: a real network failure, not a mock.
 *
 * Not a port taken from the OS and released: the test files run in parallel and all bind port 0, so the OS can hand
 * that port to another test's server a moment later, which then answers (CI once saw a 200 where a refusal was
 * meant). Port 0 never yields a privileged port, and nothing of ours listens on one; the port is checked once, so a
 * machine where something does listen there fails here with the reason, not later with a wrong answer. Not port 1,
 * or another on fetch's list of blocked ports: fetch refuses those itself without connecting at all.
 */
const REFUSING_PORT = 1023;

let checked: Promise<number> | undefined;

export function refusingPort(): Promise<number> {
  checked ??= connectOutcome(REFUSING_PORT, '127.0.0.1').then((outcome) => {
    if (outcome === 'ECONNREFUSED') return REFUSING_PORT;
    throw new Error(
      outcome === 'connected'
        ? `something listens on 127.0.0.1:${REFUSING_PORT}; the tests need a port that refuses connections`
        : `127.0.0.1:${REFUSING_PORT} did not refuse: ${outcome}`,
    );
  });
  return checked;
}

/** Whether `url`'s host and port refuse a connection now (nothing listens there): a listener that stopped. */
export async function refusesConnections(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return (await connectOutcome(Number(port), hostname)) === 'ECONNREFUSED';
}

/** One TCP connection attempt: `connected` (then closed at once), or the error's code. */
function connectOutcome(port: number, host: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}
