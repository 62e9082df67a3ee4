import { describe, expect, it } from 'vitest';
import { translateAccessControl } from '../../../../src/migration/apigee/policies/access-control.js';
import { itemsOf, loadError, translateWith } from '../../../helpers/apigee.js';

const translate = (inner: string) => translateWith(translateAccessControl, `<AccessControl name="AC">${inner}</AccessControl>`);
const rules = (fallback: string | undefined, ...matchRules: string[]) =>
  `<IPRules${fallback === undefined ? '' : ` noRuleMatchAction="${fallback}"`}>${matchRules.join('')}</IPRules>`;
const rule = (action: string, ...addresses: string[]) => `<MatchRule action="${action}">${addresses.join('')}</MatchRule>`;
const address = (text: string, mask?: string) => `<SourceAddress${mask === undefined ? '' : ` mask="${mask}"`}>${text}</SourceAddress>`;

describe('migration/apigee/policies/access-control: AccessControl -> ip-range', () => {
  it('keeps the MatchRules in order (the first that holds the address decides) and noRuleMatchAction as the default', () => {
    const { result, report } = translate(
      `<DisplayName>Partners</DisplayName>${rules('DENY', rule('DENY', address('198.51.100.0', '24')), rule('ALLOW', address('127.0.0.1', '32'), address('203.0.113.0', '24'), address('2001:db8:20::', '48')))}`,
    );
    expect(result.entries).toEqual([
      {
        name: 'orders.P',
        kind: 'ip-range',
        description: 'Imported from Apigee AccessControl "AC" (Partners), bundles/orders/apiproxy/policies/P.xml.',
        rules: [{ deny: ['198.51.100.0/24'] }, { allow: ['127.0.0.1/32', '203.0.113.0/24', '2001:db8:20::/48'] }],
        default: 'deny',
      },
    ]);
    expect(loadError(result.entries[0]!)).toBeUndefined();
    expect(itemsOf(report).translated).toEqual(['AccessControl AC -> ip-range orders.P (2 rules in order, default deny)']);
    expect(report.complete).toBe(true);
  });

  it.each<[string, string, string, Record<string, string[]>]>([
    // [case, the action, the SourceAddress, the rule]
    ['an IPv4 address without a mask: that address alone', 'ALLOW', address('192.0.2.1'), { allow: ['192.0.2.1'] }],
    ['an IPv6 address without a mask', 'ALLOW', address('2001:db8::1'), { allow: ['2001:db8::1'] }],
    ['an empty mask: the address alone', 'ALLOW', address('192.0.2.1', ''), { allow: ['192.0.2.1'] }],
    ['a mask of 0: every IPv4 address', 'ALLOW', address('0.0.0.0', '0'), { allow: ['0.0.0.0/0'] }],
    ['an address with host bits under its mask (the mask decides, as in Apigee)', 'DENY', address('198.51.100.7', '24'), { deny: ['198.51.100.7/24'] }],
    ['an action in lower case', 'allow', address('192.0.2.1', '32'), { allow: ['192.0.2.1/32'] }],
  ])('reads %s', (_case, action, source, expected) => {
    const { result, report } = translate(rules('DENY', rule(action, source)));
    expect(result.entries[0]).toMatchObject({ rules: [expected], default: 'deny' });
    expect(loadError(result.entries[0]!)).toBeUndefined();
    expect(report.complete).toBe(true);
  });

  it.each<[string, string, Array<Record<string, string[]>>, string]>([
    // Our kind needs a rule: with none, the default is written as a rule for every address.
    ['no IPRules at all (Apigee allows everyone)', '', [{ allow: ['0.0.0.0/0', '::/0'] }], 'allow'],
    ['no MatchRule, noRuleMatchAction DENY', rules('DENY'), [{ deny: ['0.0.0.0/0', '::/0'] }], 'deny'],
    ['a MatchRule without addresses (it matches nothing)', rules('ALLOW', rule('DENY')), [{ allow: ['0.0.0.0/0', '::/0'] }], 'allow'],
    ['noRuleMatchAction in lower case', rules('deny', rule('ALLOW', address('10.0.0.0', '8'))), [{ allow: ['10.0.0.0/8'] }], 'deny'],
  ])('translates %s', (_case, inner, expectedRules, fallback) => {
    const { result } = translate(inner);
    expect(result.entries[0]).toMatchObject({ rules: expectedRules, default: fallback });
    expect(loadError(result.entries[0]!)).toBeUndefined();
  });

  it.each<[string, string, RegExp]>([
    // The order of rules decides, so one rule that cannot be carried leaves the whole policy for the operator.
    ['an action other than ALLOW or DENY', rules('DENY', rule('ALLOW', address('10.0.0.0', '8')), rule('LOG', address('192.0.2.1'))), /^AccessControl AC: <MatchRule action="LOG">: an action other than ALLOW or DENY$/],
    ['an address read from a flow variable', rules('DENY', rule('ALLOW', address('{request.header.partner}'))), /^AccessControl AC: <SourceAddress>\{request.header.partner\}: the address or mask is read from a flow variable/],
    ['a mask read from a flow variable', rules('DENY', rule('ALLOW', address('10.0.0.0', '{kvm.mask}'))), /^AccessControl AC: <SourceAddress mask="\{kvm.mask\}">10.0.0.0: the address or mask is read from a flow variable/],
    ['an address that is not one', rules('DENY', rule('ALLOW', address('partner.example.com'))), /^AccessControl AC: <SourceAddress>partner.example.com: not an IPv4 or IPv6 address with a mask$/],
    ['a mask too wide for IPv4', rules('DENY', rule('ALLOW', address('10.0.0.0', '33'))), /^AccessControl AC: <SourceAddress>10.0.0.0\/33: not an IPv4 or IPv6 address with a mask$/],
    ['a noRuleMatchAction other than ALLOW or DENY', rules('LOG', rule('ALLOW', address('10.0.0.0', '8'))), /^AccessControl AC: noRuleMatchAction="LOG": neither ALLOW nor DENY$/],
  ])('writes nothing for %s, and says why', (_case, inner, item) => {
    const { result, report } = translate(inner);
    expect(result.entries).toEqual([]);
    expect(itemsOf(report).notTranslated).toEqual([expect.stringMatching(item)]);
  });

  it.each<[string, string, string]>([
    // Apigee reads X-Forwarded-For as received; the gateway resolves one address, believing X-Forwarded-For only across trusted_proxies.
    ['no ValidateBasedOn (every address, Apigee\'s default)', '', 'Apigee checked every X-Forwarded-For address as received (X_FORWARDED_FOR_ALL_IP)'],
    ['X_FORWARDED_FOR_FIRST_IP', '<ValidateBasedOn>X_FORWARDED_FOR_FIRST_IP</ValidateBasedOn>', 'Apigee checked the first X-Forwarded-For address as received (X_FORWARDED_FOR_FIRST_IP)'],
    ['x_forwarded_for_last_ip', '<ValidateBasedOn>x_forwarded_for_last_ip</ValidateBasedOn>', 'Apigee checked the last X-Forwarded-For address as received (X_FORWARDED_FOR_LAST_IP)'],
  ])('states which address is checked, for %s', (_case, inner, difference) => {
    const { report } = translate(`${rules('DENY', rule('ALLOW', address('10.0.0.0', '8')))}${inner}`);
    expect(itemsOf(report).differences).toEqual([expect.stringContaining(difference)]);
    expect(itemsOf(report).differences[0]).toMatch(/a spoofed allowed address no longer passes/);
  });

  it.each<[string, boolean]>([
    ['proxy.client.ip', true],
    ['client.ip', true],
    ['request.header.X-Real-IP', false],
  ])('with <ClientIPVariable>%s</ClientIPVariable>: complete %s (a header a client writes is never the address checked)', (variable, complete) => {
    const { result, report } = translate(`${rules('DENY', rule('ALLOW', address('10.0.0.0', '8')))}<ClientIPVariable>${variable}</ClientIPVariable>`);
    expect(result.entries).toHaveLength(1);
    expect(report.complete).toBe(complete);
    if (!complete) expect(itemsOf(report).notTranslated).toEqual([expect.stringMatching(/^AccessControl AC: <ClientIPVariable>request.header.X-Real-IP: the gateway checks the address it resolves itself/)]);
  });

  it('reports an element it does not know', () => {
    expect(itemsOf(translate(`${rules('DENY')}<Allow>x</Allow>`).report).notTranslated).toEqual(['AccessControl AC: <Allow>: an element this import does not know for this policy type']);
  });
});
