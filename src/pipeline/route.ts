import type { GatewayContext } from '../context.js';
import type { Exchange } from '../http/exchange.js';
import { assertAnnouncedSizeWithin } from '../http/request-body.js';
import { authenticateBearer } from '../proxy/bearer.js';
import type { Forwarder } from '../proxy/forward.js';
import type { CompiledRoute } from '../proxy/routes.js';
import { assertValidHost } from '../proxy/upstream-request-headers.js';
import { whenKnown, type MaybePromise } from '../maybe-promise.js';
import type { AccessTokenClaims } from '../tokens/access-token.js';
import type { CallerIdentity } from './policy-phase.js';
import type { Served } from './served.js';

/**
 * A configured route as the pipeline runs it: a protected call.
 *
 * - its policies are the defaults and `routes[].policies`, in the operator's
 *   order; the Bearer token is verified the moment one of them needs the
 *   caller (spike arrest per client), so an IP range refuses before any
 *   token work;
 * - authentication is the Bearer token (signature, expiry, issuer,
 *   revocation), if no policy needed it yet;
 * - serving is forwarding: the upstream never sees a request that failed a
 *   phase before.
 */
export function servedRoute(route: CompiledRoute, forwarder: Forwarder): Served<AccessTokenClaims> {
  return {
    name: route.path,
    methods: undefined,
    oauthErrors: false,
    bodyLimit: (limits) => limits.body_size,
    policies: (set) => set.forRoute(route.path),
    caller: (_ctx, _exchange, authenticated) => new BearerCaller(authenticated),
    authenticate: authenticateCaller,
    serve: (ctx, exchange) => forward(ctx, exchange, route, forwarder),
  };
}

/** A route's caller, for its policies: the claims of the Bearer token, verified when first asked for. */
class BearerCaller implements CallerIdentity {
  constructor(private readonly authenticated: () => MaybePromise<AccessTokenClaims>) {}

  clientId(): MaybePromise<string> {
    return whenKnown(this.authenticated(), claimOf, 'client_id' as const);
  }

  user(): MaybePromise<string> {
    return whenKnown(this.authenticated(), claimOf, 'sub' as const);
  }
}

const claimOf = (claims: AccessTokenClaims, name: 'client_id' | 'sub'): string => claims[name];

function authenticateCaller(ctx: GatewayContext, exchange: Exchange): MaybePromise<AccessTokenClaims> {
  return whenKnown(authenticateBearer(ctx, exchange.req), recordCaller, exchange);
}

function recordCaller(claims: AccessTokenClaims, exchange: Exchange): AccessTokenClaims {
  exchange.clientId = claims.client_id;
  return claims;
}

function forward(ctx: GatewayContext, exchange: Exchange, route: CompiledRoute, forwarder: Forwarder): Promise<void> {
  // An announced oversize body is refused before a byte goes upstream; chunked bodies are counted while forwarded.
  assertAnnouncedSizeWithin(exchange.req, ctx.config.limits.body_size);
  assertValidHost(exchange.req.headers.host);
  exchange.forwardedAt = process.hrtime.bigint();
  return forwarder.forward(exchange, route);
}
