import { parseAddress } from '../../http/address-range.js';
import type { PolicyKind, Rejection } from '../policy.js';
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
    return (request) => {
      const address = parseAddress(request.clientAddress);
      if (!address) return forbidden(`client address "${request.clientAddress}" is not an IP address`);
      const index = rules.findIndex((rule) => rule.ranges.contains(address));
      const action = index < 0 ? fallback : rules[index]?.action;
      if (action === 'allow') return undefined;
      return forbidden(`${address.toString()} denied by ${index < 0 ? 'the default action' : `rule ${index + 1}`}`);
    };
  },
};
