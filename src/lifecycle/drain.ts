import type { RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log/logger.js';
import type { ShutdownState } from '../telemetry/health.js';

/**
 * The graceful stop of the client listeners (plain and HTTPS). `stop`:
 *
 * 1. readiness turns to 503 `draining` (the admin listener stays up to say so);
 * 2. the listeners stop accepting and idle keep-alive connections close;
 * 3. a response still to be written gets `Connection: close`, one already
 *    under way has its connection closed once it is complete, so no client
 *    sends another request on a connection that is going away;
 * 4. after the grace, whatever is still in flight is cut (one warning with
 *    the count) so that the process always ends.
 *
 * The caller then releases policies, forwarder, admin and store.
 */
export class Drain implements ShutdownState {
  private stopping = false;
  private cut = false;
  private graceTimer?: NodeJS.Timeout;
  private graceMs = 0;
  private readonly responses = new Set<ServerResponse>();
  /** Raw connections, TLS handshakes included, so that the end of the grace can cut every one. */
  private readonly sockets = new Set<Socket>();

  constructor(private readonly logger: Logger) {}

  get draining(): boolean {
    return this.stopping;
  }

  /** Serves `server` with `listener`, keeping count of its requests and connections. */
  attach(server: Server, listener: RequestListener): void {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      this.responses.add(res);
      res.once('close', () => this.responses.delete(res));
      // A request that arrives on an open connection while draining is served, and its connection closed after it.
      if (this.stopping) res.shouldKeepAlive = false;
      listener(req, res);
    });
  }

  /** Resolves once every request in flight now has ended (later ones do not count). */
  inFlightDone(): Promise<void> {
    return Promise.all([...this.responses].map((res) => new Promise((resolve) => res.once('close', resolve)))).then(() => undefined);
  }

  /** Resolves once every listener has closed: all in-flight requests done, or cut after `graceMs`. */
  async stop(listeners: readonly Server[], graceMs: number): Promise<void> {
    this.stopping = true;
    this.graceMs = graceMs;
    for (const res of this.responses) closeConnectionAfter(res);
    // node's close() also closes the connections that are idle at this moment.
    const closed = Promise.all(listeners.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    this.graceTimer = setTimeout(() => this.endGrace(), graceMs).unref();
    await closed;
    clearTimeout(this.graceTimer);
  }

  /** Cuts whatever is still in flight now: at the end of the grace, or on a second SIGTERM. */
  endGrace(): void {
    if (!this.stopping || this.cut) return;
    this.cut = true;
    const count = this.responses.size;
    if (count > 0) this.logger.warn({ count, graceMs: this.graceMs }, 'shutdown grace over: cutting requests still in flight');
    for (const socket of this.sockets) socket.destroy();
  }
}

/** Tells the client not to reuse the connection, or, when the headers are already out, closes it after the response. */
function closeConnectionAfter(res: ServerResponse): void {
  if (!res.headersSent) {
    // node then writes `Connection: close` and ends the socket once the response is complete.
    res.shouldKeepAlive = false;
    return;
  }
  const socket = res.socket;
  if (res.writableFinished) socket?.end();
  else res.once('finish', () => socket?.end());
}
