import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddressOf, isTrustedPeer } from '../../src/http/client-address.js';
import { AddressRanges, parseCidr } from '../../src/net/address-range.js';

const ranges = (...texts: string[]) => new AddressRanges(texts.map((text) => parseCidr(text)!));
const request = (peer: string | undefined, ...forwardedFor: string[]) =>
  ({ socket: { remoteAddress: peer }, headersDistinct: forwardedFor.length > 0 ? { 'x-forwarded-for': forwardedFor } : {} }) as unknown as IncomingMessage;

const PROXIES = ranges('10.0.0.0/8', '2001:db8:ff::/48');

describe('the client address', () => {
  it.each([
    ['no trusted proxies: the socket peer, whatever X-Forwarded-For claims', request('198.51.100.4', '10.0.0.1'), ranges(), '198.51.100.4'],
    ['a peer that is not a trusted proxy: the peer', request('198.51.100.4', '203.0.113.7'), PROXIES, '198.51.100.4'],
    ['a trusted proxy: the hop it wrote', request('10.0.0.2', '203.0.113.7'), PROXIES, '203.0.113.7'],
    ['two trusted hops: the first untrusted from the right', request('10.0.0.2', '203.0.113.7, 10.1.1.1'), PROXIES, '203.0.113.7'],
    ['a spoofed entry left of the client is never reached', request('10.0.0.2', '10.9.9.9, 203.0.113.7'), PROXIES, '203.0.113.7'],
    ['repeated headers, read as one list', request('10.0.0.2', '192.0.2.1', '10.3.3.3'), PROXIES, '192.0.2.1'],
    ['every hop trusted: the leftmost', request('10.0.0.2', '10.4.4.4, 10.5.5.5'), PROXIES, '10.4.4.4'],
    ['an unreadable hop ends the chain at the last vouched-for address', request('10.0.0.2', '203.0.113.7, garbage'), PROXIES, '10.0.0.2'],
    ['a hop with a port', request('10.0.0.2', '203.0.113.7:41234'), PROXIES, '203.0.113.7'],
    ['an IPv6 hop in brackets with a port', request('10.0.0.2', '[2001:db8::1]:443'), PROXIES, '2001:db8::1'],
    ['an IPv4-mapped IPv6 peer', request('::ffff:10.0.0.2', '203.0.113.7'), PROXIES, '203.0.113.7'],
    ['no X-Forwarded-For from a trusted proxy: the proxy', request('10.0.0.2'), PROXIES, '10.0.0.2'],
    ['an IPv6 proxy', request('2001:db8:ff::1', '198.51.100.9'), PROXIES, '198.51.100.9'],
  ])('%s', (_rule, req, trusted, expected) => {
    expect(clientAddressOf(req, trusted)).toBe(expected);
  });

  it('gives a peer its canonical spelling without trusted proxies, the first time and every time after (remembered)', () => {
    for (let i = 0; i < 3; i++) {
      expect(clientAddressOf(request('::ffff:198.51.100.4'), ranges())).toBe('198.51.100.4');
      expect(clientAddressOf(request('2001:DB8:0:0::7'), ranges())).toBe('2001:db8::7');
      expect(clientAddressOf(request('not-an-address'), ranges())).toBe('not-an-address');
    }
  });

  it('passes an unreadable socket address through as it is', () => {
    expect(clientAddressOf(request(undefined), PROXIES)).toBe('');
  });

  it('says whether the peer is one of our proxies', () => {
    expect(isTrustedPeer(request('10.0.0.2'), PROXIES)).toBe(true);
    expect(isTrustedPeer(request('198.51.100.4'), PROXIES)).toBe(false);
    expect(isTrustedPeer(request(undefined), PROXIES)).toBe(false);
  });
});
