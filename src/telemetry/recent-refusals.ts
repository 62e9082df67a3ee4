/** One policy verdict against one request, as the operations page lists it: never a token, a secret, a header or a body. */
export interface RefusalRecord {
  /** Epoch milliseconds. */
  readonly at: number;
  /** The route prefix or endpoint path, as in the access log. */
  readonly route: string;
  readonly policy: string;
  readonly kind: string;
  /** `enforce`: refused; `report`: a report-only policy would have refused, and the request went on. */
  readonly mode: 'enforce' | 'report';
  readonly status: number;
  readonly errorCode: string;
  /** Only a client the gateway authenticated or verified a token of (as the access log's clientId). */
  readonly clientId: string | undefined;
  readonly clientAddress: string;
  readonly requestId: string;
}

/** As many as the operations page shows; a few kilobytes. */
export const RECENT_REFUSALS = 100;

/**
 * The latest policy refusals and would-refusals of this process, in a ring
 * of fixed size: recording one overwrites the oldest, so a flood of refusals
 * costs no memory. Other refusals (a bad token, an unknown path) are in the
 * access log and `token_gateway_failures_total`; kept out of here, a flood of
 * them cannot push out the policy verdicts an operator is watching.
 */
export class RecentRefusals {
  private readonly ring: Array<RefusalRecord | undefined>;
  private next = 0;

  constructor(readonly capacity = RECENT_REFUSALS) {
    this.ring = new Array<RefusalRecord | undefined>(capacity).fill(undefined);
  }

  record(refusal: RefusalRecord): void {
    this.ring[this.next] = Object.freeze(refusal);
    this.next = (this.next + 1) % this.capacity;
  }

  /** The newest first, at most `limit`. */
  newest(limit = this.capacity): RefusalRecord[] {
    const records: RefusalRecord[] = [];
    for (let step = 1; step <= this.capacity && records.length < limit; step++) {
      const record = this.ring[(this.next - step + this.capacity) % this.capacity];
      if (record === undefined) break;
      records.push(record);
    }
    return records;
  }
}
