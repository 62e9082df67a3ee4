import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';
import type { RequestBody } from './request-body.js';

/** One request as it moves through the gateway; what the access log reports about it. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  readonly path: string;
  readonly startedAt: bigint;
  /** The socket peer or, across trusted proxies, the X-Forwarded-For client; worked out once, on first use. */
  clientAddress(): string;
  /** Read only when a phase needs it, then shared (RequestBody). Its limit depends on what serves the request. */
  body: RequestBody;
  /** Known once a client authenticates or presents a token. */
  clientId?: string;
  /** The configured route prefix or OAuth endpoint that served the request. */
  route?: string;
  /** The rejection that was rendered, for the access log and the metrics. */
  error?: GatewayError;
  /** When a protected call was handed to the forwarder (process.hrtime.bigint()), for the upstream latency metric. */
  forwardedAt?: bigint;
  /** When the upstream's response headers arrived; set by the forwarding engine. */
  upstreamRespondedAt?: bigint;
  /**
   * Called once when the client's response closes, by the one `close`
   * listener the response carries (request-handler.ts); the forwarding call
   * sets it to settle. One slot, not a listener of its own: see
   * `ResponseClosed` in request-handler.ts for why a response has one.
   */
  onResponseClosed?: () => void;
}
