import { spawn, type ChildProcess } from 'node:child_process';
import cluster from 'node:cluster';
import { Server as NetServer, type Server } from 'node:net';

/*
 * Why a listener has several descriptors. Since libuv 1.45 (node 20), a
 * listening socket accepts one connection per turn of the event loop, and
 * leaves the rest of its queue to the next turn. A gateway under load turns
 * its loop every few milliseconds (each turn serves every connection that
 * has data), so a burst of new connections is accepted over as many turns as
 * there are connections: measured on a 2-core VM (docs/performance.md, "New
 * connections, one per turn"), the fiftieth of fifty connections opened at
 * once waited 100 to 150 ms for its first answer while the first ones were
 * on their third request, and those first requests made most of a 5 s load
 * run's p99.9. HAProxy accepts up to 64 per turn (tune.maxaccept).
 *
 * Each descriptor of the socket is watched on its own, and each accepts one
 * connection per turn, so eight descriptors accept up to eight. node has no
 * dup(); a handle sent over IPC arrives as a new descriptor of the same
 * socket (SCM_RIGHTS), which is how node:cluster's workers get theirs. So a
 * helper process, started once the gateway serves, is sent the
 * listening socket's raw handle and sends it back; the helper never listens
 * (a raw handle is not watched by its loop), and exits at once. The extra
 * descriptors hand every connection to the listener itself, so its limits,
 * timeouts, drain and TLS apply unchanged.
 *
 * A connection on a socket with none waiting costs the other descriptors a
 * failed accept each: with a new connection per request (`Connection: close`),
 * one and eight descriptors measured the same throughput and CPU.
 */

/** Descriptors per client listener, the one it bound included. */
export const ACCEPT_DESCRIPTORS = 8;
/** A helper that has not answered by then is given up: the listener keeps its one descriptor. */
const HELPER_TIMEOUT_MS = 5_000;

// Plain JavaScript run by `node -e`, so the helper needs no file of its own (the same code runs from dist/ and src/).
const HELPER_SOURCE = `
process.on('message', (count, handle) => {
  for (let i = 0; i < count; i++) process.send('descriptor', handle);
  process.disconnect();
});
`;

/** What a listener got: how many descriptors accept for it, and why it has only one when the helper failed. */
export interface AcceptDescriptors {
  readonly count: number;
  readonly problem?: string;
}

/**
 * Per listener: its extra descriptors' servers, whether it was closed while its helper ran, and the helper while it
 * lives (its own copy of the socket keeps the port open until it exits).
 */
interface Extras {
  acceptors: NetServer[];
  closed: boolean;
  helper?: ChildProcess;
}
const extras = new WeakMap<Server, Extras>();

/**
 * Gives a listening `server` ACCEPT_DESCRIPTORS - 1 more descriptors of its socket.
 * Never fails the start: a helper that cannot run or answer leaves the
 * listener as node made it, and says why. In a node:cluster worker the
 * primary accepts for it (round-robin), so nothing is done there.
 */
export async function acceptOnSeveralDescriptors(server: Server, execPath = process.execPath): Promise<AcceptDescriptors> {
  if (cluster.isWorker) return { count: 1 };
  const handle = (server as Server & { _handle?: unknown })._handle;
  if (!handle) return { count: 1, problem: 'the listener has no socket handle' };
  const state: Extras = { acceptors: [], closed: false };
  extras.set(server, state);
  let handles: unknown[];
  try {
    handles = await duplicatesFromHelper(handle, ACCEPT_DESCRIPTORS - 1, execPath, state);
  } catch (error) {
    // Closed meanwhile, the helper was stopped on purpose: nothing to report.
    return state.closed ? { count: 1 } : { count: 1, problem: (error as Error).message };
  }
  // Closed while the helper ran: the duplicates would keep the port open.
  if (state.closed) {
    for (const duplicate of handles) closeHandle(duplicate);
    return { count: 1 };
  }
  state.acceptors = handles.map((duplicate) => acceptorFor(server, duplicate));
  return { count: 1 + state.acceptors.length };
}

/**
 * Stops `server` accepting on every descriptor and closes it as node does:
 * `callback` once every connection it served is gone (node counts each
 * connection on the descriptor's server that accepted it) and no helper
 * holds the socket, so that the port refuses from then on.
 */
export function closeListener(server: Server, callback?: (error?: Error) => void): void {
  const state = extras.get(server);
  const gone: Array<Promise<unknown>> = [];
  if (state) {
    state.closed = true;
    for (const acceptor of state.acceptors.splice(0)) gone.push(new Promise((closed) => acceptor.close(closed)));
    const helper = state.helper;
    if (helper) {
      gone.push(new Promise((exited) => helper.once('exit', exited)));
      helper.kill('SIGKILL');
    }
  }
  server.close((error) => {
    void Promise.all(gone).then(() => callback?.(error));
  });
}

const closeHandle = (duplicate: unknown): void => (duplicate as { close?: () => void } | undefined)?.close?.();

/**
 * What node's accept applies to each new socket, read from the server that accepts it: an http or https listener
 * has `allowHalfOpen` and `noDelay` on (no Nagle delay on a streamed answer), which a plain net.Server has off.
 */
const SOCKET_SETTINGS = ['allowHalfOpen', 'pauseOnConnect', 'noDelay', 'keepAlive', 'keepAliveInitialDelay', 'highWaterMark'] as const;

/** A server on one more descriptor of the socket, handing each connection to the listener that bound it. */
function acceptorFor(server: Server, duplicate: unknown): NetServer {
  const acceptor = new NetServer();
  // Copied as node stored them (keepAliveInitialDelay already in seconds), not passed through the constructor again.
  for (const setting of SOCKET_SETTINGS) Reflect.set(acceptor, setting, Reflect.get(server, setting));
  acceptor.on('connection', (socket) => server.emit('connection', socket));
  // Errors of accept() on this descriptor (EMFILE...) are the listener's own: node's net.Server reports them so too.
  acceptor.on('error', (error) => server.emit('error', error));
  acceptor.listen(duplicate as Parameters<NetServer['listen']>[0]);
  return acceptor;
}

function duplicatesFromHelper(handle: unknown, count: number, execPath: string, state: Extras): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    // No inherited NODE_OPTIONS (an --inspect would collide on its port) and no output: the helper says nothing.
    const helper = spawn(execPath, ['-e', HELPER_SOURCE], { env: {}, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    // Neither the helper nor its channel keeps a process that is done (a CLI command, a test) from exiting.
    helper.unref();
    helper.channel?.unref();
    // Not started (the executable is missing): 'error' follows, and there is no process to wait for.
    const started = helper.pid !== undefined;
    if (started) state.helper = helper;
    const received: unknown[] = [];
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Done with it either way: its copy of the socket goes with it.
      helper.kill('SIGKILL');
      if (error) {
        for (const duplicate of received.splice(0)) closeHandle(duplicate);
        reject(error);
      } else resolve(received);
    };
    const timer = setTimeout(() => settle(new Error(`the descriptor helper did not answer within ${HELPER_TIMEOUT_MS} ms`)), HELPER_TIMEOUT_MS).unref();
    helper.on('error', (error) => settle(new Error(`the descriptor helper could not start: ${error.message}`)));
    helper.on('message', (_message, duplicate) => {
      // A copy still on its way once this is settled would hold the port open unseen: it is closed on arrival.
      if (settled) return closeHandle(duplicate);
      if (duplicate) received.push(duplicate);
      if (received.length === count) settle();
    });
    helper.on('exit', (code, signal) => {
      if (state.helper === helper) state.helper = undefined;
      settle(new Error(`the descriptor helper exited (${signal ?? code}) after ${received.length} of ${count} descriptors`));
    });
    if (started) helper.send(count, handle as Parameters<typeof helper.send>[1]);
  });
}
