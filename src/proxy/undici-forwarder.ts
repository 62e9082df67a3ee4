import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';
import type { GatewayError } from '../errors/gateway-error.js';
import { isTrustedPeer } from '../http/client-address.js';
import type { Exchange } from '../http/exchange.js';
import { bodyToForward, upstreamTimeout, upstreamUnavailable, type Forwarder, type ForwarderOptions } from './forward.js';
import type { CompiledRoute } from './routes.js';
import { upstreamRequestHeaders } from './upstream-request-headers.js';
import { responseHeadOf, writeResponseHead, type ResponseHead } from './upstream-response-head.js';

/*
 * The forwarding engine: one undici Pool per upstream origin, and a dispatch
 * handler that writes the upstream's response straight into the client's
 * ServerResponse. No IncomingMessage, no pipe() and no stream in between is
 * what makes it cost about half the CPU of http-proxy over node's http client
 * (bench/engines/ keeps those engines for comparison).
 */

/** What tests (and the benchmark) may change about the pools. */
export interface UndiciForwarderTuning {
  /** Connections per upstream origin; past this, requests wait in the pool's queue (the route's timeout runs meanwhile). */
  connections?: number;
}

const POOL_DEFAULTS = {
  // Enough for a busy upstream without letting one gateway open thousands of sockets to it.
  connections: 128,
  // One request at a time per connection: a slow response must not hold up the ones queued behind it.
  pipelining: 1,
  // Idle connections are closed after 4s unless the upstream's Keep-Alive hint says otherwise: under node's 5s
  // server default, so we normally close first rather than send on a socket the upstream is closing.
  keepAliveTimeout: 4_000,
  // An upstream's Keep-Alive hint cannot keep an idle socket longer than this.
  keepAliveMaxTimeout: 60_000,
  // Bounded so that requests queued behind an unreachable host fail (504) instead of waiting for the kernel's SYN retries.
  connectTimeout: 10_000,
} as const;

/** The pool and request line parts of one route, worked out on its first request. */
interface Target {
  readonly pool: Pool;
  /** changeOrigin: the upstream's host, not the client's. */
  readonly host: string;
  /** A route's upstream may have a base path, prepended to the client's path (as http-proxy did). */
  readonly basePath: string;
}

export function createUndiciForwarder(options: ForwarderOptions, tuning: UndiciForwarderTuning = {}): Forwarder {
  const pools = new Map<string, Pool>();
  const targets = new WeakMap<CompiledRoute, Target>();
  const poolOptions = { ...POOL_DEFAULTS, ...tuning };

  const targetOf = (route: CompiledRoute): Target => {
    let target = targets.get(route);
    if (target) return target;
    const { origin, host, pathname } = route.upstream;
    let pool = pools.get(origin);
    if (!pool) pools.set(origin, (pool = new Pool(origin, poolOptions)));
    target = { pool, host, basePath: pathname === '/' ? '' : pathname };
    targets.set(route, target);
    return target;
  };

  return {
    forward(exchange, route) {
      return new Promise<void>((resolve, reject) => {
        const { req, res } = exchange;
        // The client hung up during the earlier phases: nothing to ask the upstream.
        if (res.destroyed) return resolve();
        const call = new UpstreamCall(exchange, route.timeoutMs, resolve, reject);
        const target = targetOf(route);
        const fromTrustedProxy = !options.trustedProxies.isEmpty && isTrustedPeer(req, options.trustedProxies);
        target.pool.dispatch(
          {
            method: req.method ?? 'GET',
            path: target.basePath + (req.url ?? '/'),
            headers: upstreamRequestHeaders(exchange, { upstreamHost: target.host, fromTrustedProxy }),
            body: requestBody(exchange, options.maxBodyBytes, call.fail),
            // The call's own timer keeps both of undici's timeouts (UpstreamCall.deadline). undici's would cost a
            // timer object per request that lives until undici's next half-second sweep, long enough to be promoted
            // to the old generation: with them, most of a protected call's promoted bytes, and twice the full
            // collections (bench/README.md, "What changed", undici's timers).
            headersTimeout: 0,
            bodyTimeout: 0,
          },
          call,
        );
      });
    },
    close() {
      for (const pool of pools.values()) pool.destroy().catch(() => {});
      pools.clear();
    },
  };
}

/** The reason given to undici when we drop a request (never shown: settled calls ignore undici's report). */
const dropped = new Error('forwarding settled');

/**
 * One forwarded request, as undici's dispatch handler. It settles exactly
 * once: resolved when the client's response closes (complete or not),
 * rejected on the first failure; settling drops the upstream request if it is
 * still running, which frees its pooled connection.
 */
class UpstreamCall implements Dispatcher.DispatchHandler {
  private controller?: Dispatcher.DispatchController;
  private settled = false;
  /**
   * The route's timeout, one timer per call: until the response head it
   * covers everything (waiting for a pooled connection, connecting, sending
   * the body, the upstream's thinking); from the head on, it is the longest
   * silence allowed between body chunks, restarted by each one, and it does
   * not run while the call waits for a slow client (`stall` does then).
   */
  private readonly deadline: NodeJS.Timeout;
  private headReceived = false;
  /** Armed while the client's socket is full; one timer per call, restarted at each pause. */
  private stall?: NodeJS.Timeout;
  private waitingForClient = false;
  /** A 204 or 304: the client's answer ended with its head, whatever undici reports about the upstream's body afterwards. */
  private endedAtHead = false;
  /** The upstream's head, checked, until the first body byte (or the end) writes it (upstream-response-head.ts). */
  private head?: ResponseHead;
  private readonly res: ServerResponse;

  constructor(
    private readonly exchange: Exchange,
    private readonly timeoutMs: number,
    private readonly resolve: () => void,
    private readonly reject: (error: GatewayError) => void,
  ) {
    this.res = exchange.res;
    this.deadline = setTimeout(this.onDeadline, timeoutMs);
    // Through the request handler's close listener, not one of our own: a response carries one (ResponseClosed in
    // pipeline/request-handler.ts).
    exchange.onResponseClosed = this.settle;
  }

  readonly fail = (error: GatewayError): void => this.settle(error);

  // Errors are made only when needed: capturing a stack on every request costs more than the timer.
  private readonly onDeadline = (): void => {
    if (!this.headReceived) this.settle(upstreamTimeout(this.timeoutMs));
    // Paused for a slow client, the upstream is not the one silent: the stall timer judges the client; onDrain restarts this one.
    else if (!this.waitingForClient) this.settle(upstreamTimeout(this.timeoutMs, 'no body data'));
  };
  private readonly onStall = (): void => {
    if (this.waitingForClient) this.settle(upstreamTimeout(this.timeoutMs, 'client read nothing'));
  };

  private readonly settle = (error?: GatewayError): void => {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.deadline);
    clearTimeout(this.stall);
    // A no-op once undici has completed or failed the request; otherwise it
    // destroys the upstream connection, the only way to stop a response midway.
    this.controller?.abort(dropped);
    if (error) this.reject(error);
    else this.resolve();
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Settled while waiting in the pool's queue (timeout, client gone): do not send it at all.
    if (this.settled) controller.abort(dropped);
    else this.controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders, statusMessage?: string): void {
    // undici reports interim responses (102, 103 Early Hints) here too: they are not the answer, which follows.
    if (statusCode < 200) return;
    if (this.settled) return;
    // From here on the deadline is the silence allowed between body chunks.
    this.headReceived = true;
    this.deadline.refresh();
    this.exchange.upstreamRespondedAt = process.hrtime.bigint();
    const head = responseHeadOf(statusCode, statusMessage, headers, this.exchange.requestId);
    if (typeof head === 'string') {
      this.fail(upstreamUnavailable(head));
      return;
    }
    this.head = head;
    // RFC 9110 6.4.1: a 204 or 304 ends at its head. undici takes a 304's
    // Content-Length (which RFC 9110 8.6 allows) for a body it then misses,
    // and reports a mismatch: the client's answer is complete here.
    if (statusCode === 204 || statusCode === 304) {
      this.endedAtHead = true;
      clearTimeout(this.deadline);
      if (this.writeHead()) this.res.end();
    }
  }

  /** Writes the staged head; false when node refused it (the call has then failed with a 502). */
  private writeHead(): boolean {
    const head = this.head;
    if (!head) return true;
    this.head = undefined;
    const problem = writeResponseHead(this.res, head);
    if (problem) this.fail(upstreamUnavailable(problem));
    return problem === undefined;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled || this.endedAtHead) return;
    this.deadline.refresh();
    if (!this.writeHead() || this.res.write(chunk)) return;
    // The client reads slower than the upstream sends: stop reading the
    // upstream socket until it catches up, so TCP backpressure reaches the
    // upstream instead of the response piling up in our memory.
    controller.pause();
    this.res.once('drain', this.onDrain);
    // A client that stops reading would hold a pooled connection for ever
    // (undici's bodyTimeout does not run while paused): give it the idle time
    // the upstream gets. http-proxy's socket timeout did the same.
    this.waitingForClient = true;
    if (this.stall) this.stall.refresh();
    else this.stall = setTimeout(this.onStall, this.timeoutMs);
  }

  // Not clearTimeout: a cleared timer cannot be refreshed, and a stale expiry is ignored anyway.
  private readonly onDrain = (): void => {
    this.waitingForClient = false;
    // The upstream's silence is counted again from now (refresh re-arms a timer that fired meanwhile).
    if (!this.settled) this.deadline.refresh();
    this.controller?.resume();
  };

  onResponseEnd(): void {
    // The upstream has said everything; only the client's reading is left (the stall timer watches it when a write had to wait).
    clearTimeout(this.deadline);
    // Trailers are dropped, as http-proxy's pipe() did. `settle` follows on the response's 'close'.
    if (!this.settled && !this.endedAtHead && this.writeHead()) this.res.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.endedAtHead) this.settle();
    else this.fail(gatewayErrorOf(error, this.timeoutMs));
  }
}

function gatewayErrorOf(error: Error & { code?: string }, timeoutMs: number): GatewayError {
  switch (error.code) {
    // undici's headers and body timeouts are off (the call's deadline keeps them); its connect timeout is not.
    case 'UND_ERR_CONNECT_TIMEOUT':
      return upstreamTimeout(timeoutMs);
    default:
      // ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET (closed mid-response), TLS failures...
      return upstreamUnavailable(error.code ?? error.message);
  }
}

/**
 * The body undici sends: the buffered copy or the size-limited chunked
 * stream (bodyToForward), else a Content-Length body through a PassThrough.
 * Not the request itself: undici destroys a body it could not send, and to
 * spare the client's connection it first sets an IncomingMessage's `socket`
 * to null, under the feet of the renderer and the access log that still
 * handle this request. The PassThrough is the part undici may destroy.
 */
function requestBody(exchange: Exchange, limit: number, fail: (error: GatewayError) => void): Buffer | Readable | null {
  const body = bodyToForward(exchange, limit, fail);
  if (body) return body;
  const { req } = exchange;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0' ? req.pipe(new PassThrough()) : null;
}
