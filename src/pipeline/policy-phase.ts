import type { GatewayContext } from '../context.js';
import type { Exchange } from '../http/exchange.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { PolicyRequest } from '../policies/policy.js';
import type { PolicySet } from '../policies/policy-set.js';

/** Who is calling, as far as the phase that runs the policies knows. */
export interface CallerIdentity {
  clientId(): MaybePromise<string | undefined>;
  user(): MaybePromise<string | undefined>;
}

/** The policy set a request runs under, and the policies' view of the request. */
export interface OpenedPolicies {
  readonly set: PolicySet;
  readonly request: PolicyRequest;
}

/**
 * Takes the policy set in force for the rest of the exchange (a reload does
 * not change it midway) and the policies' view of the request, for routes and
 * endpoints alike. `path` is what routing matched.
 */
export function openPolicies(ctx: GatewayContext, exchange: Exchange, path: string, identity: CallerIdentity): OpenedPolicies {
  return { set: ctx.policies.current, request: new ExchangePolicyRequest(exchange, path, identity) };
}

/** The view of one exchange that policies get; the query is parsed on first use. */
class ExchangePolicyRequest implements PolicyRequest {
  private parsedQuery?: URLSearchParams;

  constructor(
    private readonly exchange: Exchange,
    readonly path: string,
    private readonly identity: CallerIdentity,
  ) {}

  get req() {
    return this.exchange.req;
  }

  get body() {
    return this.exchange.body;
  }

  get query(): URLSearchParams {
    if (!this.parsedQuery) {
      const url = this.exchange.req.url ?? '';
      const start = url.indexOf('?');
      this.parsedQuery = new URLSearchParams(start < 0 ? '' : url.slice(start + 1));
    }
    return this.parsedQuery;
  }

  get clientAddress(): string {
    return this.exchange.clientAddress();
  }

  clientId(): MaybePromise<string | undefined> {
    return this.identity.clientId();
  }

  user(): MaybePromise<string | undefined> {
    return this.identity.user();
  }
}
