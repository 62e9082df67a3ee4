import type { GatewayContext } from '../context.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Exchange } from '../http/exchange.js';
import { RequestBody } from '../http/request-body.js';
import { enforce } from '../policies/enforce.js';
import type { CompiledPolicy, Rejection } from '../policies/policy.js';
import type { MaybePromise } from '../maybe-promise.js';
import { openPolicies, type OpenedPolicies } from './policy-phase.js';
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
 * Every phase can only refuse (a GatewayError, rendered in one place by the
 * request handler), so nothing is served to a request that failed one. A
 * refusal is thrown while the phases run synchronously and rejects the
 * promise once one of them has waited: the caller handles both.
 * `routingPath` is the path as routing matched it (decoded once).
 *
 * The promise returned is the one serving returns whenever the phases before
 * it answered at once, as they do for a protected call with a Bearer token
 * verified before: no promise of our own, no microtask turn. Written as an
 * async function called by another (the request handler's dispatch), the
 * phases cost a protected call two async frames and their promises, an
 * await's reaction and a promise resolved with a promise: about 0.7 KB of its
 * allocation (bench/README.md, "The allocation sites, trimmed").
 */
export function runPhases<A>(ctx: GatewayContext, exchange: Exchange, served: Served<A>, routingPath: string): Promise<void> {
  exchange.route = served.name;
  const bodyLimit = served.bodyLimit(ctx.config.limits);
  if (exchange.body.limit !== bodyLimit) exchange.body = new RequestBody(exchange.req, bodyLimit);
  return new PhaseRun(ctx, exchange, served, routingPath).run();
}

/** One request's way through the phases; each step goes on at once when the one before answered synchronously. */
class PhaseRun<A> {
  private readonly policies: OpenedPolicies;
  private authenticated?: MaybePromise<A>;

  constructor(
    private readonly ctx: GatewayContext,
    private readonly exchange: Exchange,
    private readonly served: Served<A>,
    routingPath: string,
  ) {
    this.policies = openPolicies(ctx, exchange, routingPath, served.caller(ctx, exchange, this.authenticate));
  }

  run(): Promise<void> {
    const before = enforce(this.served.policies(this.policies.set), this.policies.request, this.wouldRefuse);
    return before ? before.then(() => this.afterPolicies()) : this.afterPolicies();
  }

  /** The caller, verified once: by the first policy that asks, else by the authentication phase. */
  private readonly authenticate = (): MaybePromise<A> => (this.authenticated ??= this.served.authenticate(this.ctx, this.exchange));

  private readonly wouldRefuse = (policy: CompiledPolicy, rejection: Rejection): void => reportWouldRefuse(this.ctx, this.exchange, policy, rejection);

  private afterPolicies(): Promise<void> {
    const { methods } = this.served;
    const { method } = this.exchange.req;
    if (methods && !methods.includes(method ?? '')) {
      throw new GatewayError('METHOD_NOT_ALLOWED', { detail: `${method}`, headers: { Allow: methods.join(', ') } });
    }
    const caller = this.authenticate();
    return caller instanceof Promise ? caller.then((known) => this.afterAuthentication(known)) : this.afterAuthentication(caller);
  }

  private afterAuthentication(caller: A): Promise<void> {
    const { clientId } = this.exchange;
    const after = clientId === undefined ? undefined : enforce(this.policies.set.forApp(clientId), this.policies.request, this.wouldRefuse);
    return after ? after.then(() => this.serve(caller)) : this.serve(caller);
  }

  private serve(caller: A): Promise<void> {
    return this.served.serve(this.ctx, this.exchange, caller);
  }
}
