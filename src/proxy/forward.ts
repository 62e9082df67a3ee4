import type { IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { GatewayError } from '../errors/gateway-error.js';
import type { AddressRanges } from '../net/address-range.js';
import type { Exchange } from '../http/exchange.js';
import type { CompiledRoute } from './routes.js';

/**
 * Forwarding, behind one interface because the performance work measured
 * engines (http-proxy, http-proxy-3, undici: bench/engines/) and kept undici.
 * The rest of the gateway sees only `forward`; what every engine must do the
 * same way is shared: the headers the upstream receives
 * (upstream-request-headers.ts), which body goes upstream (here). The
 * engine the gateway ships with is engine.ts's.
 */
export interface Forwarder {
  /**
   * Resolves when the response is complete or the client went away. Rejects
   * with 502, 504 or 413; after the response has started, the renderer turns
   * a rejection into a cut connection. Sets `exchange.upstreamRespondedAt`
   * when the upstream's response headers arrive (the upstream latency metric).
   * The relayed answer carries `X-Request-Id: exchange.requestId` in place of
   * any the upstream sent: nothing sets it on the response beforehand
   * (responseHeadOf adds it for the undici engine). An engine learns that
   * the client's response closed from `exchange.onResponseClosed`, which it
   * may set, not from a `close` listener of its own (ResponseClosed in
   * pipeline/request-handler.ts).
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

export const upstreamTimeout = (ms: number, what = 'no answer'): GatewayError =>
  new GatewayError('UPSTREAM_TIMEOUT', { detail: `${what} within ${ms}ms` });

export const upstreamUnavailable = (detail: string): GatewayError => new GatewayError('UPSTREAM_UNAVAILABLE', { detail });

/**
 * A body a policy already read goes from its copy; a chunked one streams
 * through the size limit; undefined means the request itself, as it is: a
 * Content-Length body (checked before) or none at all.
 */
export function bodyToForward(exchange: Exchange, limit: number, fail: (error: GatewayError) => void): Buffer | Readable | undefined {
  const buffered = exchange.body.contents;
  if (buffered) return buffered;
  return isChunked(exchange.req) ? limitBody(exchange, limit, fail) : undefined;
}

export const isChunked = (req: IncomingMessage): boolean => req.headers['content-length'] === undefined && req.headers['transfer-encoding'] !== undefined;

/** Passes the body through, and stops it the moment it grows past `limit`. */
export function limitBody({ req, res }: Exchange, limit: number, fail: (error: GatewayError) => void): Transform {
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
