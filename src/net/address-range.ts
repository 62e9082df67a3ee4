import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Cidr = readonly [Address, number];

/**
 * One textual address in its canonical family: an IPv4-mapped IPv6 address
 * (`::ffff:10.0.0.1`, what a dual-stack socket reports for IPv4 peers) is the
 * IPv4 address, so `10.0.0.0/8` matches it. Only the strict forms are taken:
 * ipaddr.js would also read legacy IPv4 spellings like `0x7f.1`, which no
 * proxy writes and which would only serve to confuse a range check.
 */
export function parseAddress(text: string): Address | undefined {
  const trimmed = text.trim();
  if (ipaddr.IPv4.isValidFourPartDecimal(trimmed)) return ipaddr.IPv4.parse(trimmed);
  if (!ipaddr.IPv6.isValid(trimmed)) return undefined;
  const address = ipaddr.IPv6.parse(trimmed);
  return address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

/** `10.0.0.0/8`, `2001:db8::/32`, or a lone address (a /32 or /128). */
export function parseCidr(text: string): Cidr | undefined {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  if (slash < 0) {
    const address = parseAddress(trimmed);
    return address ? [address, address.kind() === 'ipv4' ? 32 : 128] : undefined;
  }
  if (!ipaddr.IPv4.isValidCIDRFourPartDecimal(trimmed) && !ipaddr.IPv6.isValidCIDR(trimmed)) return undefined;
  const [address, bits] = ipaddr.parseCIDR(trimmed);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [address, bits];
}

/** A set of CIDR ranges compiled once; matching never throws across families. */
export class AddressRanges {
  constructor(readonly ranges: readonly Cidr[]) {}

  get isEmpty(): boolean {
    return this.ranges.length === 0;
  }

  contains(address: Address): boolean {
    return this.ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
  }

  /** The first range holding `address`, written as a CIDR (`10.20.0.0/16`); for messages, not for the request path. */
  firstHolding(address: Address): string | undefined {
    const range = this.ranges.find(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
    return range && `${range[0].toString()}/${range[1]}`;
  }
}
