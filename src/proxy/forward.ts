import { Agent as HttpAgent, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Transform } from 'node:stream';
import { createProxyServer } from 'http-proxy-3';
import { GatewayError } from '../errors/gateway-error.js';
import type { Exchange } from '../http/exchange.js';
import type { CompiledRoute } from './routes.js';

/**
 * Forwarding, in a module of its own because the performance work measures
 * engines (http-proxy, http-proxy-3, undici) and may swap this one. The rest
 * of the gateway sees only `forward`.
 */
export interface Forwarder {
  /** Resolves when the response is complete or the client went away; rejects (502/504/413) while nothing is sent yet. */
  forward(exchange: Exchange, route: CompiledRoute): Promise<void>;
  close(): void;
}

export interface ForwarderOptions {
  /** Chunked request bodies are cut at this many bytes (Content-Length is checked before forwarding). */
  maxBodyBytes: number;
}

interface InFlight {
  timeoutMs: number;
  timedOut: boolean;
  abandoned: boolean;
  upstreamRequest?: ClientRequest;
}

// Keep-alive pools: a new TCP connection per request would cost more than the proxying itself.
const agentOptions = { keepAlive: true, maxSockets: 512, maxFreeSockets: 64, scheduling: 'lifo' as const };

export function createForwarder(options: ForwarderOptions): Forwarder {
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent(agentOptions);
  const inFlight = new WeakMap<IncomingMessage, InFlight>();
  // xfwd: X-Forwarded-For/-Port/-Proto/-Host; changeOrigin: Host is the upstream's, the client's goes in X-Forwarded-Host.
  const proxy = createProxyServer({ xfwd: true, changeOrigin: true });

  proxy.on('proxyReq', (upstreamRequest, req) => {
    const state = inFlight.get(req);
    if (!state) return;
    if (state.abandoned) {
      upstreamRequest.destroy();
      return;
    }
    state.upstreamRequest = upstreamRequest;
    upstreamRequest.setTimeout(state.timeoutMs, () => {
      state.timedOut = true;
      upstreamRequest.destroy();
    });
  });
  // The client hung up: nothing to answer, the upstream request is already destroyed by the library.
  proxy.on('econnreset', () => {});

  return {
    forward(exchange, route) {
      const { req, res } = exchange;
      const state: InFlight = { timeoutMs: route.timeoutMs, timedOut: false, abandoned: false };
      inFlight.set(req, state);
      req.headers['x-request-id'] = exchange.requestId;
      return new Promise<void>((resolve, reject) => {
        let settled = false;
        const settle = (error?: GatewayError) => {
          if (settled) return;
          settled = true;
          if (error) {
            state.abandoned = true;
            state.upstreamRequest?.destroy();
            reject(error);
          } else resolve();
        };
        res.once('close', () => settle());
        const body = isChunked(req) ? limitBody(req, options.maxBodyBytes, () => settle(new GatewayError('PAYLOAD_TOO_LARGE', { detail: 'chunked body over limit' }))) : undefined;
        const agent = route.upstream.protocol === 'https:' ? httpsAgent : httpAgent;
        proxy.web(req, res, { target: route.upstream.href, agent, ...(body ? { buffer: body } : {}) }, (error) => {
          const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
          settle(
            state.timedOut
              ? new GatewayError('UPSTREAM_TIMEOUT', { detail: `no answer within ${state.timeoutMs}ms` })
              : new GatewayError('UPSTREAM_UNAVAILABLE', { detail: code }),
          );
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

const isChunked = (req: IncomingMessage): boolean => req.headers['content-length'] === undefined && req.headers['transfer-encoding'] !== undefined;

/** Passes the body through, and stops it the moment it grows past `limit`. */
function limitBody(req: IncomingMessage, limit: number, onOverflow: () => void): Transform {
  let size = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size <= limit) {
        callback(null, chunk);
        return;
      }
      req.unpipe(limiter);
      onOverflow();
      callback();
    },
  });
  req.pipe(limiter);
  return limiter;
}
