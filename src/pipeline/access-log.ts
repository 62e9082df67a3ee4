import type { GatewayContext } from '../context.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Exchange } from '../http/exchange.js';
import { writeAccessLine } from '../log/access-line.js';

/**
 * The end of every exchange, once the response is over and the pipeline has
 * settled: metrics always, the access line at `info` and above.
 */
export function completeExchange(ctx: GatewayContext, exchange: Exchange, finished: boolean): void {
  const elapsedNs = Number(process.hrtime.bigint() - exchange.startedAt);
  if (!finished && ctx.shutdown.graceOver && !isGatewaysCut(exchange.error)) exchange.error = cutAtShutdown();
  const status = finished ? exchange.res.statusCode : unfinishedStatus(exchange.error);
  ctx.metrics.requestCompleted(exchange, status, elapsedNs / 1e9);
  if (ctx.logger.isLevelEnabled('info')) logAccess(ctx, exchange, status, elapsedNs / 1e6);
}

/** One line per request, from named fields only: no header, body or query is ever logged. */
function logAccess(ctx: GatewayContext, exchange: Exchange, status: number, latencyMs: number): void {
  const { req, error } = exchange;
  writeAccessLine(ctx.logger, {
    requestId: exchange.requestId,
    method: req.method,
    path: exchange.path,
    route: exchange.route,
    status,
    // Hundredths, and not only for the reader: V8 caches number-to-string results in a table in the old generation,
    // and an unrounded double made a new entry per line, 14.5 bytes promoted a line and full collections with them
    // (docs/performance.md, "Leads for the next person").
    latencyMs: Math.round(latencyMs * 100) / 100,
    clientId: exchange.clientId,
    errorCode: error?.code,
    policy: error?.policy,
    detail: error?.detail,
  });
}

/**
 * A response that never completed: the gateway's own cut (upstream died
 * mid-body) keeps its 5xx; otherwise the client went away first, which is
 * 499 by nginx's convention.
 */
const unfinishedStatus = (error: GatewayError | undefined): number => (isGatewaysCut(error) ? error.status : 499);

const isGatewaysCut = (error: GatewayError | undefined): error is GatewayError => error !== undefined && error.status >= 500;

/**
 * A request still in flight when the shutdown grace ran out was ended by the
 * gateway, not by its client: 503 with the reason, not 499
 * (docs/monitoring.md, the access line's `status`).
 */
const cutAtShutdown = (): GatewayError => new GatewayError('SERVICE_UNAVAILABLE', { detail: 'cut at the end of the shutdown grace' });
