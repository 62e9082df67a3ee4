// The forwarding engine the gateway shipped before undici, kept for the benchmark: http-proxy's API over node's
// http client and keep-alive Agents. Parameterised by `createProxyServer` because http-proxy 1.18 and its
// maintained rewrite http-proxy-3 share that API; http-proxy.mjs and http-proxy-3.mjs pick the library.
// Same contract as src/proxy/forward.ts (Forwarder): the shared helpers come from the built gateway.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Readable } from 'node:stream';
import { isTrustedPeer } from '../../dist/http/client-address.js';
import { bodyToForward, upstreamTimeout, upstreamUnavailable } from '../../dist/proxy/forward.js';
import { upstreamRequestHeaders } from '../../dist/proxy/upstream-request-headers.js';

// Keep-alive pools: a new TCP connection per request would cost more than the proxying itself.
const agentOptions = { keepAlive: true, maxSockets: 512, maxFreeSockets: 64, scheduling: 'lifo' };

/** @param {(options: object) => import('node:events').EventEmitter & { web: Function, close: Function }} createProxyServer */
export function nodeHttpProxyEngine(createProxyServer) {
  /** @param {{ maxBodyBytes: number, trustedProxies: unknown }} options */
  return function createForwarder(options) {
    const httpAgent = new HttpAgent(agentOptions);
    const httpsAgent = new HttpsAgent(agentOptions);
    /** What the proxy's events need to know about one request in flight, by request. */
    const inFlight = new WeakMap();
    // X-Forwarded-* are written by upstreamRequestHeaders, not appended by the library.
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
      upstreamRequest.setTimeout(state.idleTimeoutMs, () => state.fail(upstreamTimeout(state.idleTimeoutMs)));
    });

    proxy.on('proxyRes', (upstreamResponse, req) => {
      const state = inFlight.get(req);
      state?.responseStarted();
      // http-proxy copies the upstream's headers after this event: the upstream cannot replace the exchange's id.
      delete upstreamResponse.headers['x-request-id'];
      upstreamResponse.on('error', () => {}); // reported through 'close' below
      // pipe() does not pass on a premature end: an upstream that dies mid-body would leave the client waiting
      // forever. Failing here cuts the client's connection, so it sees a truncated response instead of a hang.
      upstreamResponse.once('close', () => {
        if (!upstreamResponse.complete) state?.fail(upstreamUnavailable('upstream closed mid-response'));
      });
    });
    // The client hung up: nothing to answer, the library has destroyed the upstream request.
    proxy.on('econnreset', () => {});

    return {
      forward(exchange, route) {
        const { req, res } = exchange;
        return new Promise((resolve, reject) => {
          // Covers everything before the response headers: waiting for a pooled socket, connecting, sending the
          // body, and the upstream's thinking.
          const deadline = setTimeout(() => state.fail(upstreamTimeout(route.timeoutMs)), route.timeoutMs);
          const settle = (error) => {
            if (state.settled) return;
            state.settled = true;
            clearTimeout(deadline);
            if (!error) return resolve();
            state.upstreamRequest?.destroy();
            reject(error);
          };
          const state = { idleTimeoutMs: route.timeoutMs, fail: settle, responseStarted: () => clearTimeout(deadline), settled: false };
          inFlight.set(req, state);
          // The Forwarder contract: told by the request handler's one `close` listener, not a listener of ours (forward.ts).
          exchange.onResponseClosed = settle;

          req.headers = headerRecord(upstreamRequestHeaders(exchange, { upstreamHost: route.upstream.host, fromTrustedProxy: isTrustedPeer(req, options.trustedProxies) }));
          const body = bodyToForward(exchange, options.maxBodyBytes, settle);
          const agent = route.upstream.protocol === 'https:' ? httpsAgent : httpAgent;
          // A string target: http-proxy 1.18 reads the base path from url.parse()'s `path`, which a URL lacks.
          const target = route.upstream.href;
          const buffer = Buffer.isBuffer(body) ? Readable.from([body]) : body;
          // The Forwarder contract: the relayed answer carries the exchange's id (forward.ts).
          res.setHeader('X-Request-Id', exchange.requestId);
          proxy.web(req, res, { target, agent, ...(buffer ? { buffer } : {}) }, (error) => {
            settle(upstreamUnavailable(error.code ?? error.message));
          });
        });
      },
      close() {
        httpAgent.destroy();
        httpsAgent.destroy();
        proxy.close();
      },
    };
  };
}

/** The flat `[name, value, ...]` list as the record http-proxy copies from `req.headers`. */
function headerRecord(list) {
  const record = {};
  for (let i = 0; i < list.length; i += 2) {
    const [name, value] = [list[i], list[i + 1]];
    const prior = record[name];
    record[name] = prior === undefined ? value : [].concat(prior, value);
  }
  return record;
}
