import { describe, expect, it } from 'vitest';
import { ipRangeSchema } from '../../../src/policies/ip-range/schema.js';
import { parseAddress } from '../../../src/net/address-range.js';

describe('ip-range schema', () => {
  it.each([
    [{ rules: [{ allow: '10.0.0.0/33' }], default: 'deny' }, 'rules.0.allow', 'expected an IPv4 or IPv6 address or CIDR range'],
    [{ rules: [{ allow: '10.0.0.1', deny: '10.0.0.2' }], default: 'deny' }, 'rules.0', 'either `allow: <ranges>` or `deny: <ranges>`'],
    [{ rules: [{}], default: 'deny' }, 'rules.0', 'either `allow: <ranges>` or `deny: <ranges>`'],
    [{ rules: [{ allow: '0x7f.1' }], default: 'deny' }, 'rules.0.allow', 'expected an IPv4 or IPv6 address'],
    [{ rules: [{ allow: '10.0.0.0/8' }] }, 'default', ''],
    [{ rules: [], default: 'allow' }, 'rules', ''],
  ])('refuses %j at %s', (settings, path, message) => {
    const result = ipRangeSchema.safeParse({ name: 'p', kind: 'ip-range', ...settings });
    expect(result.success).toBe(false);
    const issue = result.error?.issues.find((candidate) => candidate.path.join('.').startsWith(path));
    expect(issue?.message).toContain(message);
  });

  it('compiles each rule into its action and ranges, tried in order', () => {
    const settings = ipRangeSchema.parse({ name: 'office', kind: 'ip-range', rules: [{ deny: '10.0.66.0/24' }, { allow: ['10.0.0.0/8', '2001:db8::/32'] }], default: 'deny' });
    expect(settings.rules.map((rule) => rule.action)).toEqual(['deny', 'allow']);
    expect(settings.rules[1]!.ranges.contains(parseAddress('2001:db8::5')!)).toBe(true);
    expect(settings.default).toBe('deny');
  });
});
