import { BoundedMemo } from '../../bounded-memo.js';
import { parseAddress } from '../../net/address-range.js';
import type { Explain, PolicyKind, Rejection } from '../policy.js';
import { ipRangeSchema } from './schema.js';

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
    const decide = (text: string, explain?: Explain): Rejection | undefined => {
      const address = parseAddress(text);
      if (!address) return forbidden(`client address "${text}" is not an IP address`);
      const index = rules.findIndex((rule) => rule.ranges.contains(address));
      const rule = rules[index];
      const decidedBy = rule ? `rule ${index + 1} (${rule.ranges.firstHolding(address) ?? ''})` : 'the default action';
      if ((rule?.action ?? fallback) === 'allow') {
        explain?.(`${address.toString()} allowed by ${decidedBy}`);
        return undefined;
      }
      return forbidden(`${address.toString()} denied by ${decidedBy}`);
    };
    // The verdict depends on the address alone; most traffic comes from few addresses (clients, balancers). An
    // allowed address is remembered as null, found in one lookup (undefined would take a second to tell from absent).
    const verdicts = new BoundedMemo((text) => decide(text) ?? null);
    return (request, explain) => {
      const text = request.clientAddress;
      // The dry run asks why: decided afresh, the memo left as it is.
      if (explain) return decide(text, explain);
      return verdicts.of(text) ?? undefined;
    };
  },
};
