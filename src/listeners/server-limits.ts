import type { Server } from 'node:http';
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
