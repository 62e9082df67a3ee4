import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { BoundedMemo } from '../bounded-memo.js';
import { parseAddress, type Address, type AddressRanges } from '../net/address-range.js';

/**
 * Who the client is. The socket peer, unless that peer is one of our own
 * proxies (`trusted_proxies`): then X-Forwarded-For is read right to left,
 * each hop believed only while the hop that wrote it is trusted. The first
 * untrusted address is the client. Whatever a client writes into the header
 * itself sits to the left of that and is never reached, so it cannot spoof
 * its way into an allowed range.
 */
export function clientAddressOf(req: IncomingMessage, trustedProxies: AddressRanges, response?: ServerResponse): string {
  // A request whose body was cut short (a policy stopped it mid-stream) has let go of its socket; its response still holds it.
  const socket = (req.socket as Socket | null) ?? response?.socket;
  const peer = socket?.remoteAddress ?? '';
  // Without trusted proxies the answer depends on the peer's spelling alone, and few peers send most requests.
  if (trustedProxies.isEmpty) return canonicalPeers.of(peer);
  let current = parseAddress(peer);
  if (!current) return peer;
  if (!trustedProxies.contains(current)) return current.toString();
  const hops = forwardedHops(req);
  for (let i = hops.length - 1; i >= 0 && trustedProxies.contains(current); i--) {
    // An entry we cannot read ends the chain: the last address we could vouch for stands.
    const hop: Address | undefined = parseAddress(withoutPort(hops[i] as string));
    if (!hop) break;
    current = hop;
  }
  return current.toString();
}

/**
 * A peer address in its canonical form (`::ffff:10.0.0.1` is `10.0.0.1`),
 * remembered by spelling: parsing it with ipaddr.js cost a protected call
 * about 3 KB of garbage and several microseconds.
 */
const canonicalPeers = new BoundedMemo((peer) => parseAddress(peer)?.toString() ?? peer);

/** True when the socket peer is one of our own proxies, whose X-Forwarded-* we may keep. */
export function isTrustedPeer(req: IncomingMessage, trustedProxies: AddressRanges): boolean {
  const peer = parseAddress(req.socket.remoteAddress ?? '');
  return peer !== undefined && trustedProxies.contains(peer);
}

/** Every X-Forwarded-For entry, in order, across repeated headers. */
function forwardedHops(req: IncomingMessage): string[] {
  const values = req.headersDistinct['x-forwarded-for'] ?? [];
  return values.flatMap((value) => value.split(',')).map((hop) => hop.trim()).filter((hop) => hop !== '');
}

/** Some proxies write `203.0.113.7:41234` or `[2001:db8::1]:443`. */
function withoutPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1] as string;
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  return v4WithPort ? (v4WithPort[1] as string) : hop;
}
