import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayConfig } from '../config/schema.js';
import type { GatewayContext } from '../context.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { clientAddressOf } from '../http/client-address.js';
import type { Exchange } from '../http/exchange.js';
import { assertOneMediaType, preferredFormat } from '../http/negotiate.js';
import { renderError } from '../http/render-error.js';
import { RequestBody } from '../http/request-body.js';
import { requestIdOf } from '../http/request-id.js';
import { assertDecodableTransferCoding } from '../http/transfer-coding.js';
import type { Forwarder } from '../proxy/forward.js';
import type { CompiledRoute, RouteTable } from '../proxy/routes.js';
import { routingPathOf } from '../proxy/safe-path.js';
import { completeExchange } from './access-log.js';
import { ENDPOINTS } from './endpoints.js';
import { runPhases } from './phases.js';
import { recordRefusal } from './policy-verdicts.js';
import { servedRoute } from './route.js';
import type { Served } from './served.js';

/**
 * Told when the response closes, by the handler's own `close` listener: the
 * drain tracker's count of requests in flight (lifecycle/drain.ts).
 *
 * A response carries exactly one `close` listener, this handler's, which
 * tells the drain tracker, the forwarding call (`exchange.onResponseClosed`)
 * and the access log in turn. With a second listener node's EventEmitter
 * keeps them in an array made at one allocation site in node's events.js,
 * the same site that makes every socket's listener arrays. Sockets live long:
 * when a burst of new connections outlives a scavenge, V8 can mark that site
 * "pretenure" (allocation-site pretenuring), and from then on every
 * response's listener array is born in the old generation, holding the
 * request's closures, and through them its whole young graph, alive through
 * every scavenge: 2 MB promoted per scavenge instead of about 25 KB, a third more
 * CPU per call, until the process exits (docs/performance.md, "The slow
 * process: V8's pretenuring"). The gateway also turns that pretenuring off
 * by flag (cli/node-flags.ts); this keeps an embedded gateway, which cannot
 * set the flag, out of it on its protected path.
 */
export type ResponseClosed = () => void;

/** node's request listener, plus who to tell when the response closes. */
export type GatewayRequestListener = (req: IncomingMessage, res: ServerResponse, responseClosed?: ResponseClosed) => void;

/**
 * The request listener of one generation: open the exchange, find what
 * serves it (one of the gateway's endpoints, by exact path, else a route),
 * run the phases (phases.ts), and render any refusal in one place. Nothing a
 * client sends can escape as an unhandled rejection: unknown failures become
 * the spec's 500 and are logged with their stack, never shown.
 */
export function createRequestHandler(ctx: GatewayContext, routes: RouteTable, forwarder: Forwarder): GatewayRequestListener {
  const servedRoutes = new Map<CompiledRoute, Served>(routes.routes.map((route) => [route, servedRoute(route, forwarder) as Served]));
  return (req, res, responseClosed) => {
    let exchange: Exchange;
    try {
      exchange = openExchange(req, res, ctx.config);
    } catch (error) {
      if (responseClosed) res.on('close', responseClosed);
      lastResort(ctx, res, undefined, error);
      return;
    }
    // Counted and logged once the response is over *and* the handler has
    // settled, so a client that hangs up mid-request is reported with the
    // reason too. A countdown rather than Promise.all: this runs per request.
    let pending = 2;
    let finished = false;
    const settled = () => {
      if (--pending !== 0) return;
      try {
        completeExchange(ctx, exchange, finished);
      } catch (error) {
        ctx.logger.error({ requestId: exchange.requestId, err: error }, 'could not record a completed request');
      }
    };
    // The response's only close listener (ResponseClosed, above). on, not once: a response closes once, and once()
    // costs a wrapper per request.
    res.on('close', () => {
      responseClosed?.();
      finished = res.writableFinished;
      exchange.onResponseClosed?.();
      settled();
    });
    // The failure is rendered (or, failing that, the connection cut) before settling.
    const failed = (error: unknown) => {
      renderFailure(ctx, exchange, error);
      settled();
    };
    // A phase refuses by throwing while the phases run synchronously, by rejecting once one has waited (phases.ts).
    let served: Promise<void>;
    try {
      served = dispatch(ctx, exchange, routes, servedRoutes);
    } catch (error) {
      // Rendered a microtask later, not now: node emits the request before its parser has seen the end of it, and
      // the renderer closes the connection of a request that is not complete (render-error.ts).
      served = Promise.reject(error);
    }
    // One derived promise per request.
    served.then(settled, failed);
  };
}

/** The failure rendered (reject); a failure while rendering it costs the connection (lastResort). */
function renderFailure(ctx: GatewayContext, exchange: Exchange, error: unknown): void {
  try {
    reject(ctx, exchange, error);
  } catch (failure) {
    lastResort(ctx, exchange.res, exchange.requestId, failure);
  }
}

function openExchange(req: IncomingMessage, res: ServerResponse, config: GatewayConfig): Exchange {
  // X-Request-Id goes out with whatever answers: an endpoint (served.ts), a refusal (render-error.ts), the
  // upstream's relayed head (upstream-response-head.ts, which needs a response with no header set beforehand).
  const requestId = requestIdOf(req);
  // Until the phases know what serves the request (and its body limit); a refusal before that reads no body.
  const body = new RequestBody(req, config.limits.body_size);
  let address: string | undefined;
  const clientAddress = () => (address ??= clientAddressOf(req, config.trusted_proxies, res));
  // The answer's format (Accept) is not worked out here: only an answer of ours needs it (a refusal, the token
  // endpoints), never a proxied call's, and a browser's Accept header took about 0.5 µs to parse.
  // Every field an exchange may get later is here from the start, so that every exchange has one hidden class
  // whichever way its request goes (forwarded, refused, cut off by its client). Added later in a path's own order,
  // each path made a shape of its own, and the functions that complete an exchange (the access line, the metrics)
  // were thrown away and recompiled when a new one first appeared, as at the first end of a load run (bench/README.md).
  return {
    req,
    res,
    requestId,
    path: pathOf(req.url),
    startedAt: process.hrtime.bigint(),
    clientAddress,
    body,
    clientId: undefined,
    route: undefined,
    error: undefined,
    forwardedAt: undefined,
    upstreamRespondedAt: undefined,
    onResponseClosed: undefined,
  };
}

/** Origin-form paths only; the query never takes part in routing (and never reaches the logs). */
export function pathOf(url: string | undefined): string {
  if (!url?.startsWith('/')) return '';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** What serves the request, run through the phases; a refusal found before any of them waited is thrown. */
function dispatch(ctx: GatewayContext, exchange: Exchange, routes: RouteTable, servedRoutes: ReadonlyMap<CompiledRoute, Served>): Promise<void> {
  // Before routing, for every target: a body framed or typed in a way the gateway would read otherwise than an
  // upstream reaches no policy, endpoint or upstream. One property read each when the headers are absent.
  assertDecodableTransferCoding(exchange.req.headers['transfer-encoding']);
  assertOneMediaType(exchange.req.headers['content-type']);
  if (!exchange.path) throw new GatewayError('MALFORMED_REQUEST', { detail: 'request target is not a path' });
  const endpoint = ENDPOINTS.get(exchange.path);
  if (endpoint) return runPhases(ctx, exchange, endpoint, exchange.path);
  const routingPath = routingPathOf(exchange.path);
  const route = routes.match(routingPath);
  if (!route) throw new GatewayError('NOT_FOUND');
  return runPhases(ctx, exchange, servedRoutes.get(route) as Served, routingPath);
}

function reject(ctx: GatewayContext, exchange: Exchange, error: unknown): void {
  let gatewayError: GatewayError;
  if (isGatewayError(error)) gatewayError = error;
  else {
    ctx.logger.error({ requestId: exchange.requestId, err: error }, 'unexpected failure');
    gatewayError = new GatewayError('INTERNAL_ERROR', { detail: 'unexpected failure', cause: error });
  }
  exchange.error = gatewayError;
  // Now, while the connection is there to say who the client is (a body cut mid-stream closes it once answered).
  if (gatewayError.policy !== undefined) recordRefusal(ctx, exchange);
  const oauth = ENDPOINTS.get(exchange.path)?.oauthErrors ?? false;
  renderError(exchange.res, gatewayError, { requestId: exchange.requestId, format: preferredFormat(exchange.req), oauth });
}

/**
 * The last line of defence: a failure while rendering a failure (or while
 * opening the exchange) costs this request its connection, never the
 * process. Everything on the normal paths has its own handling; this is for
 * what nobody foresaw, and it is logged as such.
 */
function lastResort(ctx: GatewayContext, res: ServerResponse, requestId: string | undefined, error: unknown): void {
  ctx.logger.error({ requestId, err: error }, 'request failed beyond its error handling; connection closed');
  res.destroy();
}
