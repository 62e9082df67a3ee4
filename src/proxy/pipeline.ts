import type { GatewayContext } from '../context.js';
import { assertAnnouncedSizeWithin } from '../http/request-body.js';
import type { Exchange } from '../http/exchange.js';
import type { AccessTokenClaims } from '../oauth/access-token.js';
import { enforce } from '../policies/enforce.js';
import { enforceAppPolicies, openPolicies } from '../policies/policy-request.js';
import { authenticateBearer } from './bearer.js';
import type { Forwarder } from './forward.js';
import type { CompiledRoute } from './routes.js';

/**
 * A protected call, phase by phase. Every phase before `forward` can only
 * reject, so the upstream never sees a request that failed one.
 *
 * 1. the route's policies (defaults first), in the operator's order; the
 *    Bearer token is verified the moment one of them needs the caller
 *    (spike arrest per client), so an IP range refuses before any token work;
 * 2. the Bearer token (signature, expiry, issuer, revocation), if no policy
 *    needed it yet;
 * 3. the application's own policies (accounts.yaml), now that it is known;
 * 4. forwarding.
 */
export async function handleProtectedRequest(
  ctx: GatewayContext,
  exchange: Exchange,
  route: CompiledRoute,
  routingPath: string,
  forwarder: Forwarder,
): Promise<void> {
  exchange.route = route.path;
  let verified: Promise<AccessTokenClaims> | undefined;
  const authenticate = () => (verified ??= authenticateBearer(ctx, exchange.req));
  const { set, request } = openPolicies(ctx, exchange, routingPath, {
    clientId: async () => (await authenticate()).client_id,
    user: async () => (await authenticate()).sub,
  });
  await enforce(set.forRoute(route.path), request);
  const claims = await authenticate();
  exchange.clientId = claims.client_id;
  await enforceAppPolicies(exchange, claims.client_id);
  // An announced oversize body is refused before a byte goes upstream; chunked bodies are counted while forwarded.
  assertAnnouncedSizeWithin(exchange.req, ctx.config.limits.body_size);
  exchange.forwardedAt = process.hrtime.bigint();
  await forwarder.forward(exchange, route);
}
