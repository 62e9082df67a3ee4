import type { GatewayContext } from '../context.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Exchange } from '../http/exchange.js';
import { RequestBody } from '../http/request-body.js';
import { enforce, type WouldRefuse } from '../policies/enforce.js';
import type { MaybePromise } from '../maybe-promise.js';
import { openPolicies } from './policy-phase.js';
import { reportWouldRefuse } from './policy-verdicts.js';
import type { Served } from './served.js';

/**
 * The phases of every request, an endpoint's or a route's, in one shape:
 *
 * 1. policies before authentication: the defaults, then the endpoint's or
 *    route's own (they may ask who the caller is: a claimed client for an
 *    endpoint, the verified Bearer token for a route);
 * 2. the method (405) for an endpoint;
 * 3. authentication: the client's credentials, the Bearer token, or nobody;
 * 4. policies after authentication: the app's own (accounts.yaml
 *    `apps[].policies`), once a verified client is known;
 * 5. serving.
 *
 * Every phase can only refuse (throw a GatewayError, rendered in one place by
 * the request handler), so nothing is served to a request that failed one.
 * `routingPath` is the path as routing matched it (decoded once).
 */
export async function runPhases<A>(ctx: GatewayContext, exchange: Exchange, served: Served<A>, routingPath: string): Promise<void> {
  exchange.route = served.name;
  const bodyLimit = served.bodyLimit(ctx.config.limits);
  if (exchange.body.limit !== bodyLimit) exchange.body = new RequestBody(exchange.req, bodyLimit);
  let authenticated: MaybePromise<A> | undefined;
  const authenticate = () => (authenticated ??= served.authenticate(ctx, exchange));
  const policies = openPolicies(ctx, exchange, routingPath, served.caller(ctx, exchange, authenticate));
  const wouldRefuse: WouldRefuse = (policy, rejection) => reportWouldRefuse(ctx, exchange, policy, rejection);
  // Awaited only when a check answered with a promise: each await is a microtask turn per request.
  const before = enforce(served.policies(policies.set), policies.request, wouldRefuse);
  if (before) await before;
  const { methods } = served;
  if (methods && !methods.includes(exchange.req.method ?? '')) {
    throw new GatewayError('METHOD_NOT_ALLOWED', { detail: `${exchange.req.method}`, headers: { Allow: methods.join(', ') } });
  }
  const pending = authenticate();
  const caller = pending instanceof Promise ? await pending : pending;
  if (exchange.clientId !== undefined) {
    const after = enforce(policies.set.forApp(exchange.clientId), policies.request, wouldRefuse);
    if (after) await after;
  }
  await served.serve(ctx, exchange, caller);
}
