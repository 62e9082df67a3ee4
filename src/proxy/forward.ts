import { Agent as HttpAgent, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Readable, Transform } from 'node:stream';
import { createProxyServer } from 'http-proxy-3';
import { GatewayError } from '../errors/gateway-error.js';
import type { AddressRanges } from '../http/address-range.js';
import { isTrustedPeer } from '../http/client-address.js';
import type { Exchange } from '../http/exchange.js';
import type { CompiledRoute } from './routes.js';

/**
 * Forwarding, in a module of its own because the performance work measures
 * engines (http-proxy, http-proxy-3, undici) and may swap this one. The rest
 * of the gateway sees only `forward`.
 */
export interface Forwarder {
  /**
   * Resolves when the response is complete or the client went away. Rejects
   * with 502, 504 or 413; after the response has started, the renderer turns
   * a rejection into a cut connection.
   */
  forward(exchange: Exchange, route: CompiledRoute): Promise<void>;
  close(): void;
}

export interface ForwarderOptions {
  /** Chunked request bodies are cut at this many bytes (Content-Length is checked before forwarding). */
  maxBodyBytes: number;
  /** Our own load balancers: their X-Forwarded-Proto, -Host and -Port are passed on instead of replaced. */
  trustedProxies: AddressRanges;
}

/** What the proxy's events need to know about one request in flight. */
interface InFlight {
  readonly idleTimeoutMs: number;
  readonly fail: (error: GatewayError) => void;
  readonly responseStarted: () => void;
  settled: boolean;
  upstreamRequest?: ClientRequest;
}

// Keep-alive pools: a new TCP connection per request would cost more than the proxying itself.
const agentOptions = { keepAlive: true, maxSockets: 512, maxFreeSockets: 64, scheduling: 'lifo' as const };

const timeoutError = (ms: number) => new GatewayError('UPSTREAM_TIMEOUT', { detail: `no answer within ${ms}ms` });

export function createForwarder(options: ForwarderOptions): Forwarder {
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent(agentOptions);
  const inFlight = new WeakMap<IncomingMessage, InFlight>();
  // X-Forwarded-* are written by setForwardedHeaders, not appended by the library (see there).
  const proxy = createProxyServer({ xfwd: false, changeOrigin: true });

  proxy.on('proxyReq', (upstreamRequest, req) => {
    const state = inFlight.get(req);
    if (!state) return;
    if (state.settled) {
      upstreamRequest.destroy();
      return;
    }
    state.upstreamRequest = upstreamRequest;
    // Idle time on the upstream socket, including mid-body stalls after the headers.
    upstreamRequest.setTimeout(state.idleTimeoutMs, () => state.fail(timeoutError(state.idleTimeoutMs)));
  });

  proxy.on('proxyRes', (upstreamResponse, req) => {
    const state = inFlight.get(req);
    state?.responseStarted();
    upstreamResponse.on('error', () => {}); // reported through 'close' below
    // pipe() does not pass on a premature end: an upstream that dies mid-body
    // would leave the client waiting forever. Failing here cuts the client's
    // connection, so it sees a truncated response instead of a hang.
    upstreamResponse.once('close', () => {
      if (!upstreamResponse.complete) state?.fail(new GatewayError('UPSTREAM_UNAVAILABLE', { detail: 'upstream closed mid-response' }));
    });
  });
  // The client hung up: nothing to answer, the library has destroyed the upstream request.
  proxy.on('econnreset', () => {});

  return {
    forward(exchange, route) {
      const { req, res } = exchange;
      return new Promise<void>((resolve, reject) => {
        // Covers everything before the response headers: waiting for a pooled
        // socket, connecting, sending the body, and the upstream's thinking.
        const deadline = setTimeout(() => state.fail(timeoutError(route.timeoutMs)), route.timeoutMs);
        const settle = (error?: GatewayError) => {
          if (state.settled) return;
          state.settled = true;
          clearTimeout(deadline);
          if (!error) return resolve();
          state.upstreamRequest?.destroy();
          reject(error);
        };
        const state: InFlight = { idleTimeoutMs: route.timeoutMs, fail: settle, responseStarted: () => clearTimeout(deadline), settled: false };
        inFlight.set(req, state);
        res.once('close', () => settle());

        setForwardedHeaders(exchange, isTrustedPeer(req, options.trustedProxies));
        const body = bodyToForward(exchange, options.maxBodyBytes, settle);
        const agent = route.upstream.protocol === 'https:' ? httpsAgent : httpAgent;
        proxy.web(req, res, { target: route.upstream, agent, ...(body ? { buffer: body } : {}) }, (error) => {
          settle(new GatewayError('UPSTREAM_UNAVAILABLE', { detail: (error as NodeJS.ErrnoException).code ?? error.message }));
        });
      });
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
      proxy.close();
    },
  };
}

/**
 * X-Forwarded-For gets the client's address appended (readers take it right
 * to left, so the last entry is the one we vouch for). Proto, Host and Port
 * are replaced by what this gateway saw, so a client cannot claim it came
 * over https, unless the peer is one of our `trusted_proxies`, whose values
 * describe the client's side of the load balancer. Expect is dropped: Node
 * has already answered `100 Continue` to the client.
 */
function setForwardedHeaders({ req, requestId }: Exchange, fromTrustedProxy: boolean): void {
  const headers = req.headers;
  const clientAddress = req.socket.remoteAddress ?? '';
  const prior = headers['x-forwarded-for'];
  headers['x-forwarded-for'] = prior ? `${prior}, ${clientAddress}` : clientAddress;
  headers['x-request-id'] = requestId;
  delete headers.expect;
  if (fromTrustedProxy && headers['x-forwarded-proto']) return;
  headers['x-forwarded-proto'] = 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http';
  headers['x-forwarded-port'] = String(req.socket.localPort ?? '');
  if (headers.host) headers['x-forwarded-host'] = headers.host;
  else delete headers['x-forwarded-host'];
}

/**
 * A body a policy already read goes from its copy; a chunked one streams
 * through the size limit; one with a Content-Length (checked before) streams
 * as it is.
 */
function bodyToForward(exchange: Exchange, limit: number, fail: (error: GatewayError) => void): Readable | undefined {
  const buffered = exchange.body.contents;
  if (buffered) return Readable.from([buffered]);
  return isChunked(exchange.req) ? limitBody(exchange, limit, fail) : undefined;
}

const isChunked = (req: IncomingMessage): boolean => req.headers['content-length'] === undefined && req.headers['transfer-encoding'] !== undefined;

/** Passes the body through, and stops it the moment it grows past `limit`. */
function limitBody({ req, res }: Exchange, limit: number, fail: (error: GatewayError) => void): Transform {
  let size = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size <= limit) {
        callback(null, chunk);
        return;
      }
      req.unpipe(limiter);
      fail(new GatewayError('PAYLOAD_TOO_LARGE', { detail: 'chunked body over limit' }));
      // If the upstream had already answered, nobody reads the rest of this body: free the connection now.
      if (res.headersSent) req.socket.destroy();
      callback();
    },
  });
  req.pipe(limiter);
  return limiter;
}
