import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { isPolicyEndpoint, type GatewayConfig } from './config/schema.js';
import type { GatewayContext } from './context.js';
import { clientAddressOf } from './http/client-address.js';
import { GatewayError, isGatewayError } from './errors/gateway-error.js';
import { renderError } from './errors/render.js';
import type { Exchange } from './http/exchange.js';
import { preferredFormat } from './http/negotiate.js';
import { RequestBody } from './http/request-body.js';
import { requestIdOf } from './http/request-id.js';
import { discoveryEndpoint } from './oauth/endpoints/discovery.js';
import type { Endpoint } from './oauth/endpoints/endpoint.js';
import { jwksEndpoint } from './oauth/endpoints/jwks.js';
import { openApiEndpoint } from './oauth/endpoints/openapi.js';
import { revokeEndpoint } from './oauth/endpoints/revoke.js';
import { tokenEndpoint } from './oauth/endpoints/token.js';
import type { Forwarder } from './proxy/forward.js';
import { handleProtectedRequest } from './proxy/pipeline.js';
import type { RouteTable } from './proxy/routes.js';
import { routingPathOf } from './proxy/safe-path.js';
import { enforceEndpointPolicies } from './oauth/endpoint-policies.js';
import { livenessEndpoint, readinessEndpoint } from './ops/health.js';

const ENDPOINTS: ReadonlyMap<string, Endpoint> = new Map(
  [tokenEndpoint, revokeEndpoint, discoveryEndpoint, jwksEndpoint, openApiEndpoint, readinessEndpoint, livenessEndpoint].map((endpoint) => [endpoint.path, endpoint]),
);

/**
 * The request lifecycle: identify, route (token service | proxy), and render
 * any rejection in one place. Nothing a client sends can escape as an
 * unhandled rejection: unknown failures become the spec's 500 and are logged
 * with their stack, never shown.
 */
export function createRequestHandler(ctx: GatewayContext, routes: RouteTable, forwarder: Forwarder): RequestListener {
  return (req, res) => {
    let exchange: Exchange;
    try {
      exchange = openExchange(req, res, ctx.config);
    } catch (error) {
      lastResort(ctx, res, undefined, error);
      return;
    }
    const handled = dispatch(ctx, exchange, routes, forwarder)
      .catch((error: unknown) => reject(ctx, exchange, error))
      .catch((error: unknown) => lastResort(ctx, res, exchange.requestId, error));
    // Counted and logged once the response is over *and* the handler has
    // settled, so a client that hangs up mid-request is reported with the
    // reason too. A countdown rather than Promise.all: this runs per request.
    let pending = 2;
    let finished = false;
    const settled = () => {
      if (--pending !== 0) return;
      try {
        complete(ctx, exchange, finished);
      } catch (error) {
        ctx.logger.error({ requestId: exchange.requestId, err: error }, 'could not record a completed request');
      }
    };
    res.once('close', () => {
      finished = res.writableFinished;
      settled();
    });
    void handled.then(settled);
  };
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

/** Metrics always; the access line only at `info` and above. */
function complete(ctx: GatewayContext, exchange: Exchange, finished: boolean): void {
  const elapsedNs = Number(process.hrtime.bigint() - exchange.startedAt);
  const status = finished ? exchange.res.statusCode : unfinishedStatus(exchange.error);
  ctx.metrics.requestCompleted(exchange, status, elapsedNs / 1e9);
  if (ctx.logger.isLevelEnabled('info')) logAccess(ctx, exchange, status, elapsedNs / 1e6);
}

function openExchange(req: IncomingMessage, res: ServerResponse, config: GatewayConfig): Exchange {
  const requestId = requestIdOf(req);
  res.setHeader('X-Request-Id', requestId);
  const body = new RequestBody(req, config.limits.body_size);
  let address: string | undefined;
  const clientAddress = () => (address ??= clientAddressOf(req, config.trusted_proxies));
  return { req, res, requestId, path: pathOf(req.url), format: preferredFormat(req), startedAt: process.hrtime.bigint(), clientAddress, body };
}

/** Origin-form paths only; the query never takes part in routing (and never reaches the logs). */
function pathOf(url: string | undefined): string {
  if (!url?.startsWith('/')) return '';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

async function dispatch(ctx: GatewayContext, exchange: Exchange, routes: RouteTable, forwarder: Forwarder): Promise<void> {
  if (!exchange.path) throw new GatewayError('MALFORMED_REQUEST', { detail: 'request target is not a path' });
  const endpoint = ENDPOINTS.get(exchange.path);
  if (endpoint) {
    exchange.route = endpoint.path;
    exchange.body = new RequestBody(exchange.req, ctx.config.limits.oauth_body_size);
    if (isPolicyEndpoint(endpoint.path)) await enforceEndpointPolicies(ctx, exchange, endpoint.path);
    if (!endpoint.methods.includes(exchange.req.method ?? '')) {
      throw new GatewayError('METHOD_NOT_ALLOWED', { detail: `${exchange.req.method}`, headers: { Allow: endpoint.methods.join(', ') } });
    }
    await endpoint.handle(ctx, exchange);
    return;
  }
  const routingPath = routingPathOf(exchange.path);
  const route = routes.match(routingPath);
  if (!route) throw new GatewayError('NOT_FOUND');
  await handleProtectedRequest(ctx, exchange, route, routingPath, forwarder);
}

function reject(ctx: GatewayContext, exchange: Exchange, error: unknown): void {
  let gatewayError: GatewayError;
  if (isGatewayError(error)) gatewayError = error;
  else {
    ctx.logger.error({ requestId: exchange.requestId, err: error }, 'unexpected failure');
    gatewayError = new GatewayError('INTERNAL_ERROR', { detail: 'unexpected failure', cause: error });
  }
  exchange.error = gatewayError;
  const oauth = ENDPOINTS.get(exchange.path)?.oauthErrors ?? false;
  renderError(exchange.res, gatewayError, { requestId: exchange.requestId, format: exchange.format, oauth });
}

/** One line per request, from named fields only: no header, body or query is ever logged. */
function logAccess(ctx: GatewayContext, exchange: Exchange, status: number, latencyMs: number): void {
  const { req, error } = exchange;
  ctx.logger.info(
    {
      requestId: exchange.requestId,
      method: req.method,
      path: exchange.path,
      route: exchange.route,
      status,
      latencyMs: Math.round(latencyMs * 100) / 100,
      clientId: exchange.clientId,
      errorCode: error?.code,
      policy: error?.policy,
      detail: error?.detail,
    },
    'request',
  );
}

/**
 * A response that never completed: the gateway's own cut (upstream died
 * mid-body) keeps its 5xx; otherwise the client went away first, which is
 * 499 by nginx's convention.
 */
const unfinishedStatus = (error: GatewayError | undefined): number => (error && error.status >= 500 ? error.status : 499);
