import type { GatewayContext } from '../context.js';
import type { Exchange } from '../http/exchange.js';
import { enforce } from './enforce.js';
import type { PolicyRequest } from './policy.js';

/** Who is calling, as far as the phase that runs the policies knows. */
export interface CallerIdentity {
  clientId(): Promise<string | undefined>;
  user(): Promise<string | undefined>;
}

/**
 * Takes the policy set in force for the rest of the exchange (a reload does
 * not change it midway) and the policies' view of the request, for routes and
 * OAuth endpoints alike. `path` is what routing matched.
 */
export function openPolicies(ctx: GatewayContext, exchange: Exchange, path: string, identity: CallerIdentity): NonNullable<Exchange['policies']> {
  const opened = { set: ctx.policies.current, request: new ExchangePolicyRequest(exchange, path, identity) };
  exchange.policies = opened;
  return opened;
}

/** The application's own policies (accounts.yaml `apps[].policies`), once it is known. */
export async function enforceAppPolicies(exchange: Exchange, clientId: string): Promise<void> {
  if (exchange.policies) await enforce(exchange.policies.set.forApp(clientId), exchange.policies.request);
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

  clientId(): Promise<string | undefined> {
    return this.identity.clientId();
  }

  user(): Promise<string | undefined> {
    return this.identity.user();
  }
}
