import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { GatewayConfig } from '../config/schema.js';

type Limits = GatewayConfig['limits'];

/** The node server options that `limits` sets, shared by the plain and the HTTPS listener. */
export function serverOptionsOf(limits: Limits) {
  const { headers_timeout, request_timeout, keep_alive_timeout } = limits;
  return {
    headersTimeout: headers_timeout,
    requestTimeout: request_timeout,
    keepAliveTimeout: keep_alive_timeout,
    // Fixed when the server is created: how often node looks for requests past their timeouts.
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(headers_timeout / 4)),
    // node keeps the first of two Host or Authorization lines and drops the other unseen; joined, two of either
    // are one value that no check accepts (RFC 9112 3.2: more than one Host is a 400; a second credential is refused
    // rather than guessed between, as repeated parameter headers are).
    joinDuplicateHeaders: true,
  };
}

/**
 * Applies reloaded limits to a running server. node reads these three
 * properties afresh at every check and every response, so the next request
 * gets them; only the checking interval keeps the value it started with.
 */
export function applyServerLimits(server: Server, limits: Limits): void {
  const options = serverOptionsOf(limits);
  server.headersTimeout = options.headersTimeout;
  server.requestTimeout = options.requestTimeout;
  server.keepAliveTimeout = options.keepAliveTimeout;
}

/**
 * Answers a client that sends its request and then half-closes its socket (`nc -N`, some HTTP/1.0 tools), as nginx
 * and HAProxy do. node's default (`httpAllowHalfOpen` false) ends the socket on the client's FIN, which cut every
 * answer not written in that same turn (a proxied call, a token grant that had already run) and logged it as 499.
 * With it on, node marks the request in flight as the connection's last and closes the socket once its response is
 * written (destroySoon), or at once when none is in flight, so no half-open socket is left behind; keep-alive is
 * unchanged for a client that does not half-close. A FIN in the middle of a body is still a parse error (node's 400).
 * The HTTPS listener also needs `allowHalfOpen` on its TLS server (HALF_OPEN_TLS), which http.Server sets itself.
 */
export function answerHalfClosedClients<S extends Server | HttpsServer>(server: S): S {
  // Not in @types/node, but a documented http.Server property read at each FIN.
  (server as S & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  return server;
}

/** The TLS server's share of answerHalfClosedClients: without it the TLS socket ends itself on the client's FIN. */
export const HALF_OPEN_TLS = Object.freeze({ allowHalfOpen: true });
