import { parseAddress } from '../../net/address-range.js';
import type { PolicyKind, Rejection } from '../policy.js';
import { ipRangeSchema } from './schema.js';

const MAX_REMEMBERED_ADDRESSES = 10_000;

const forbidden = (detail: string): Rejection => ({ code: 'IP_RANGE_FORBIDDEN', detail });

/**
 * SPEC 5.8 IP range validation (SPEC 7: 403). The address is the one the
 * request context resolved (socket peer, or X-Forwarded-For across trusted
 * proxies only); an address that cannot be read is refused, never guessed.
 */
export const ipRange: PolicyKind<typeof ipRangeSchema> = {
  kind: 'ip-range',
  schema: ipRangeSchema,
  compile({ rules, default: fallback }) {
    // The verdict depends on the address alone; most traffic comes from few addresses (clients, balancers).
    const verdicts = new Map<string, Rejection | undefined>();
    const decide = (text: string): Rejection | undefined => {
      const address = parseAddress(text);
      if (!address) return forbidden(`client address "${text}" is not an IP address`);
      const index = rules.findIndex((rule) => rule.ranges.contains(address));
      const action = index < 0 ? fallback : rules[index]?.action;
      if (action === 'allow') return undefined;
      return forbidden(`${address.toString()} denied by ${index < 0 ? 'the default action' : `rule ${index + 1}`}`);
    };
    return (request) => {
      const text = request.clientAddress;
      if (verdicts.has(text)) return verdicts.get(text);
      const verdict = decide(text);
      // Bounded: a flood of distinct addresses starts the memo over instead of growing it.
      if (verdicts.size >= MAX_REMEMBERED_ADDRESSES) verdicts.clear();
      verdicts.set(text, verdict);
      return verdict;
    };
  },
};
