import { describe, expect, it } from 'vitest';
import { cidr, cidrList, duration, httpUrl, POLICY_NAME, size } from '../../src/config/fields.js';
import { parseAddress } from '../../src/net/address-range.js';

const at = (text: string) => parseAddress(text)!;

const problem = (result: { success: boolean; error?: { issues: Array<{ message: string }> } }) => (result.success ? undefined : result.error!.issues[0]!.message);

describe('gateway.yaml field types', () => {
  describe('duration', () => {
    const field = duration('30s', { min: 10, max: 60_000 });
    it.each([
      [undefined, 30_000],
      ['500ms', 500],
      ['2s', 2_000],
      ['1m', 60_000],
    ])('reads %j as %i ms (the default through the same parsing)', (text, ms) => {
      expect(field.parse(text)).toBe(ms);
    });
    it.each([
      ['soon', 'expected a duration like 500ms, 2s, 30m or 24h, got "soon"'],
      ['5ms', 'must be between 10ms and 1m, got "5ms"'],
      ['2m', 'must be between 10ms and 1m, got "2m"'],
    ])('refuses %j: %s', (text, message) => {
      expect(problem(field.safeParse(text))).toBe(message);
    });
    it('without a maximum, says only the minimum', () => {
      expect(problem(duration('1h', { min: 100 }).safeParse('50ms'))).toBe('must be at least 100ms, got "50ms"');
    });
    it('a timer is bounded by the longest wait node keeps (24d): a longer one would fire after 1 ms', () => {
      const timer = duration('1h', { min: 100, timer: true });
      expect(timer.parse('24d')).toBe(24 * 86_400_000);
      expect(problem(timer.safeParse('25d'))).toBe('must be between 100ms and 24d (the longest a timer can wait), got "25d"');
      // A bound of its own below that stays its own.
      expect(problem(duration('1s', { max: 60_000, timer: true }).safeParse('2m'))).toBe('must be between 1ms and 1m, got "2m"');
    });
  });

  describe('size', () => {
    const field = size('1mb');
    it.each([
      [undefined, 1_048_576],
      ['16kb', 16_384],
      [512, 512],
    ])('reads %j as %i bytes', (value, bytes) => {
      expect(field.parse(value)).toBe(bytes);
    });
    it.each([['big'], ['0kb'], [0], [-1], [1.5]])('refuses %j', (value) => {
      expect(field.safeParse(value).success).toBe(false);
    });
  });

  describe('httpUrl', () => {
    it.each([
      ['http://127.0.0.1:9/', 'http://127.0.0.1:9'],
      ['https://api.example.com/base//', 'https://api.example.com/base'],
      ['https://api.example.com', 'https://api.example.com'],
    ])('reads %s as %s (trailing slashes dropped)', (text, url) => {
      expect(httpUrl.parse(text)).toBe(url);
    });
    it.each(['ftp://x', 'http://x/?q=1', 'http://x/#top', 'not a url', '//x'])('refuses %s', (text) => {
      expect(problem(httpUrl.safeParse(text))).toBe('expected an http:// or https:// URL without query or fragment');
    });
  });

  describe('cidr and cidrList', () => {
    it('compiles one range or a list into ranges a check only evaluates', () => {
      expect(cidrList.parse('10.0.0.0/8').contains(at('10.1.2.3'))).toBe(true);
      const ranges = cidrList.parse(['192.168.0.0/16', '2001:db8::/32', '203.0.113.7']);
      expect(['192.168.1.1', '2001:db8::1', '203.0.113.7'].map((address) => ranges.contains(at(address)))).toEqual([true, true, true]);
      expect(ranges.contains(at('203.0.113.8'))).toBe(false);
    });
    it.each(['10.0.0.0/33', 'ten', '10.0.0.0/8/8', ''])('refuses %j, saying what a range looks like', (text) => {
      expect(problem(cidr.safeParse(text))).toMatch(/^expected an IPv4 or IPv6 address or CIDR range/);
    });
  });

  it.each([
    ['guard', true],
    ['per-client.spike_arrest-2', true],
    ['9lives', true],
    ['x'.repeat(64), true],
    ['x'.repeat(65), false],
    ['-leading-dash', false],
    ['has space', false],
    ['', false],
  ])('POLICY_NAME: %j is a policy name: %s', (name, ok) => {
    expect(POLICY_NAME.test(name)).toBe(ok);
  });
});
