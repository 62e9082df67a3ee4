import { describe, expect, it } from 'vitest';
import { AddressRanges, parseAddress, parseCidr } from '../../src/net/address-range.js';

const ranges = (...texts: string[]) => new AddressRanges(texts.map((text) => parseCidr(text)!));
const at = (text: string) => parseAddress(text)!;

describe('addresses and ranges', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1'],
    [' 10.0.0.1 ', '10.0.0.1'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['2001:db8::1', '2001:db8::1'],
    ['::1', '::1'],
  ])('reads %j as %s (an IPv4-mapped address as IPv4)', (text, address) => {
    expect(parseAddress(text)?.toString()).toBe(address);
  });

  it.each(['0x7f.1', '127.1', '10.0.0.256', 'localhost', '', '10.0.0.1/8'])('refuses %j (only strict forms)', (text) => {
    expect(parseAddress(text)).toBeUndefined();
  });

  it.each([
    ['10.0.0.0/8', '10.0.0.0', 8],
    ['203.0.113.7', '203.0.113.7', 32],
    ['2001:db8::/32', '2001:db8::', 32],
    ['::1', '::1', 128],
    ['::ffff:10.0.0.0/104', '10.0.0.0', 8],
  ])('reads the range %j as %s/%i', (text, network, bits) => {
    const [address, size] = parseCidr(text)!;
    expect([address.toString(), size]).toEqual([network, bits]);
  });

  it.each(['10.0.0.0/33', '2001:db8::/129', '10.0.0.0/', 'ten/8', '0x7f.0.0.0/8'])('refuses the range %j', (text) => {
    expect(parseCidr(text)).toBeUndefined();
  });

  it('matches an address against compiled ranges, never across families', () => {
    const set = ranges('10.0.0.0/8', '2001:db8::/32');
    expect(set.contains(at('10.200.1.1'))).toBe(true);
    expect(set.contains(at('::ffff:10.200.1.1'))).toBe(true);
    expect(set.contains(at('2001:db8:1::5'))).toBe(true);
    expect(set.contains(at('11.0.0.1'))).toBe(false);
    expect(set.contains(at('2001:db9::1'))).toBe(false);
    expect(ranges('0.0.0.0/0').contains(at('::1'))).toBe(false);
  });

  it('knows when it is empty', () => {
    expect(ranges().isEmpty).toBe(true);
    expect(ranges('::/0').isEmpty).toBe(false);
  });
});
