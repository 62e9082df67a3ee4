import type { AddressRanges } from '../http/address-range.js';
import { clientAddressOf } from '../http/client-address.js';
import type { Exchange } from '../http/exchange.js';
import type { PolicyRequest } from './policy.js';

/** Who is calling, as far as the phase that runs the policies knows. */
export interface CallerIdentity {
  clientId(): Promise<string | undefined>;
  user(): Promise<string | undefined>;
}

/** The view of one exchange that policies get; the query and the client address are worked out on first use. */
export class ExchangePolicyRequest implements PolicyRequest {
  private parsedQuery?: URLSearchParams;
  private resolvedAddress?: string;

  constructor(
    private readonly exchange: Exchange,
    readonly path: string,
    private readonly trustedProxies: AddressRanges,
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
    this.resolvedAddress ??= clientAddressOf(this.exchange.req, this.trustedProxies);
    return this.resolvedAddress;
  }

  clientId(): Promise<string | undefined> {
    return this.identity.clientId();
  }

  user(): Promise<string | undefined> {
    return this.identity.user();
  }
}
