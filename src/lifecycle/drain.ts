import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { closeListener } from '../listeners/accept-descriptors.js';
import type { Logger } from '../log/logger.js';
import type { GatewayRequestListener } from '../pipeline/request-handler.js';
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
  /**
   * Requests in flight, as a count: a Set of responses churned once per
   * request, and its table living in old space kept every young response
   * reachable until promoted (bench/README.md, "where the time goes").
   */
  private inFlight = 0;
  /** Of those, the ones that began before the last inFlightDone call (its epoch), and who waits for them to end. */
  private earlier = 0;
  private epoch = 0;
  private readonly earlierWaiters: Array<() => void> = [];
  /** Raw connections, TLS handshakes included, so that the end of the grace can cut every one. */
  private readonly sockets = new Set<Socket>();
  /**
   * Each connection that has carried a request (the TLS socket for HTTPS),
   * with the response it is serving, so that `stop` can close it after that
   * response. Keyed by connection, which keep-alive reuses: a request
   * overwrites its connection's entry instead of adding and deleting one.
   */
  private readonly serving = new Map<Socket, ServerResponse | undefined>();

  constructor(private readonly logger: Logger) {}

  get draining(): boolean {
    return this.stopping;
  }

  get graceOver(): boolean {
    return this.cut;
  }

  /**
   * Serves `server` with `listener`, keeping count of its requests and connections.
   * `listener` must call its third argument once when the response closes:
   * that is the only way a request leaves the count (TypeScript accepts a
   * listener that ignores it, and then `stop` waits out its grace period).
   */
  attach(server: Server, listener: GatewayRequestListener): void {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      this.inFlight++;
      const epoch = this.epoch;
      const socket = req.socket;
      if (!this.serving.has(socket)) socket.once('close', () => this.serving.delete(socket));
      // Pipelined requests queue on one connection; the entry holds the latest, which is the one answered last.
      this.serving.set(socket, res);
      // A request that arrives on an open connection while draining is served, and its connection closed after it.
      if (this.stopping) res.shouldKeepAlive = false;
      // Told by the listener's own close listener, not one of ours: a response carries one (ResponseClosed).
      listener(req, res, () => this.ended(socket, res, epoch));
    });
  }

  private ended(socket: Socket, res: ServerResponse, epoch: number): void {
    this.inFlight--;
    if (this.serving.get(socket) === res) this.serving.set(socket, undefined);
    if (epoch === this.epoch) return;
    if (--this.earlier === 0) for (const resolve of this.earlierWaiters.splice(0)) resolve();
  }

  /**
   * Resolves once every request in flight now has ended (later ones do not
   * count). Counted by epochs: each call starts a new one, and waits for all
   * requests of the earlier epochs, so a second call may resolve the first a
   * little later than needed, never earlier.
   */
  inFlightDone(): Promise<void> {
    this.epoch++;
    this.earlier = this.inFlight;
    if (this.earlier === 0) return Promise.resolve();
    return new Promise((resolve) => this.earlierWaiters.push(resolve));
  }

  /** Resolves once every listener has closed: all in-flight requests done, or cut after `graceMs`. */
  async stop(listeners: readonly Server[], graceMs: number): Promise<void> {
    this.stopping = true;
    this.graceMs = graceMs;
    for (const res of this.serving.values()) if (res) closeConnectionAfter(res);
    // node's close() also closes the connections that are idle at this moment.
    const closed = Promise.all(listeners.map((server) => new Promise<void>((resolve) => closeListener(server, () => resolve()))));
    this.graceTimer = setTimeout(() => this.endGrace(), graceMs).unref();
    await closed;
    clearTimeout(this.graceTimer);
    // A listener closes once its last connection has, which can come before that connection's response says it
    // closed: the releases that follow (the forwarder's pools first) must not overtake the requests it cut, or
    // a cut request is logged as the forwarder's failure, or not at all if the exit comes first.
    await this.requestsEnded();
  }

  /** The requests in flight have all told their end; bounded, because a stop must end even if one never does. */
  private async requestsEnded(): Promise<void> {
    if (this.inFlight === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, REQUESTS_END_BOUND_MS)));
    await Promise.race([this.inFlightDone(), bound]);
    clearTimeout(timer);
  }

  /** Cuts whatever is still in flight now: at the end of the grace, or on a second SIGTERM. */
  endGrace(): void {
    if (!this.stopping || this.cut) return;
    this.cut = true;
    const count = this.inFlight;
    if (count > 0) this.logger.warn({ count, graceMs: this.graceMs }, 'shutdown grace over: cutting requests still in flight');
    for (const socket of this.sockets) socket.destroy();
  }
}

/**
 * How long `stop` waits, once the listeners have closed, for the requests on their connections to tell their end.
 * Those connections are closed, so it is a matter of ticks; the bound is for a request handler that never tells.
 */
const REQUESTS_END_BOUND_MS = 1_000;

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
