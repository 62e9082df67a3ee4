import type { GatewayContext } from '../context.js';
import { assertAnnouncedSizeWithin } from '../http/request-body.js';
import type { Exchange } from '../http/exchange.js';
import { authenticateBearer } from './bearer.js';
import type { Forwarder } from './forward.js';
import type { CompiledRoute } from './routes.js';

/**
 * A protected call, phase by phase. Every phase before `forward` can only
 * reject, so the upstream never sees a request that failed one. The policy
 * engine adds its phases between authentication and forwarding.
 */
export async function handleProtectedRequest(ctx: GatewayContext, exchange: Exchange, route: CompiledRoute, forwarder: Forwarder): Promise<void> {
  exchange.route = route.path;
  const claims = await authenticateBearer(ctx, exchange.req);
  exchange.clientId = claims.client_id;
  // An announced oversize body is refused before a byte goes upstream; chunked bodies are counted while forwarded.
  assertAnnouncedSizeWithin(exchange.req, ctx.config.limits.body_size);
  await forwarder.forward(exchange, route);
}
