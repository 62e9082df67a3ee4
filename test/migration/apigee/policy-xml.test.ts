import { describe, expect, it } from 'vitest';
import { parseOrReport, readPolicies, reportUnknownElements } from '../../../src/migration/apigee/policy-xml.js';
import { ImportReport } from '../../../src/migration/apigee/report.js';
import { bundleOf, itemsOf, policyOf } from '../../helpers/apigee.js';

describe('migration/apigee/policy-xml: the policies of a bundle', () => {
  it('reads every policies/*.xml, by its name attribute, with its type, flags and place', () => {
    const report = new ImportReport();
    const bundle = bundleOf({
      'policies/SA.xml': '<?xml version="1.0"?>\n<SpikeArrest name="SA-Token" enabled="false" continueOnError="TRUE"><Rate>1ps</Rate></SpikeArrest>',
      'policies/Q.xml': '<Quota name="Q"/>',
      'proxies/default.xml': '<ProxyEndpoint name="default"/>',
      'policies/nested/X.xml': '<SpikeArrest name="X"/>',
      'policies/readme.txt': 'not a policy',
    });
    const policies = readPolicies(bundle, report);
    expect([...policies.keys()].sort()).toEqual(['Q', 'SA-Token']);
    expect(policies.get('SA-Token')).toMatchObject({
      type: 'SpikeArrest',
      name: 'SA-Token',
      enabled: false,
      continueOnError: true,
      file: 'bundles/orders/apiproxy/policies/SA.xml',
      place: { file: 'bundles/orders/apiproxy/policies/SA.xml', line: 2 },
    });
    expect(policies.get('Q')).toMatchObject({ type: 'Quota', enabled: true, continueOnError: false });
    expect(report.complete).toBe(true);
  });

  it.each<[string, string, string]>([
    ['no name attribute: the file name', '<SpikeArrest/>', 'SA'],
    ['an empty name attribute: the file name', '<SpikeArrest name=""/>', 'SA'],
    ['a name attribute that differs from the file name: the attribute', '<SpikeArrest name="Other"/>', 'Other'],
  ])('names a policy with %s', (_case, xml, name) => {
    const policies = readPolicies(bundleOf({ 'policies/SA.xml': xml }), new ImportReport());
    expect([...policies.keys()]).toEqual([name]);
  });

  it.each<[string, boolean, boolean]>([
    ['<SpikeArrest/>', true, false],
    ['<SpikeArrest enabled="False" continueOnError="false"/>', false, false],
    ['<SpikeArrest enabled="yes" continueOnError="1"/>', true, false],
  ])('reads %s as enabled %s, continueOnError %s (Apigee\'s defaults for anything not a boolean)', (xml, enabled, continueOnError) => {
    expect(policyOf(xml)).toMatchObject({ enabled, continueOnError });
  });

  it('reports a policy file it cannot read as not translated, with file:line and what to do, and goes on with the others', () => {
    const report = new ImportReport();
    const bundle = bundleOf({ 'policies/Bad.xml': '<SpikeArrest>\n<Rate>1ps</SpikeArrest>', 'policies/Bomb.xml': '\n<!DOCTYPE x [<!ENTITY a "b">]><SpikeArrest/>', 'policies/Good.xml': '<SpikeArrest name="Good"/>' });
    expect([...readPolicies(bundle, report).keys()]).toEqual(['Good']);
    expect(report.notTranslated).toEqual([
      { file: 'bundles/orders/apiproxy/policies/Bad.xml', line: 2, what: 'the file', why: expect.stringMatching(/^not well-formed XML/), todo: expect.stringMatching(/fix the XML/) },
      { file: 'bundles/orders/apiproxy/policies/Bomb.xml', line: 2, what: 'the file', why: 'a DOCTYPE or ENTITY declaration (refused: bundles need none)', todo: expect.stringMatching(/fix the XML/) },
    ]);
  });

  it('parseOrReport gives the root of a readable file and nothing but a report item for another', () => {
    const report = new ImportReport();
    expect(parseOrReport('<SharedFlow/>', 'f.xml', report)?.localName).toBe('SharedFlow');
    expect(parseOrReport('<SharedFlow>', 'g.xml', report)).toBeUndefined();
    expect(report.notTranslated.map((item) => item.file)).toEqual(['g.xml']);
  });

  it('reports each child element a translator did not read, by name and line: nothing is dropped silently', () => {
    const report = new ImportReport();
    const policy = policyOf('<SpikeArrest name="SA">\n  <Rate>1ps</Rate>\n  <Surprise/>\n  <Another>x</Another>\n</SpikeArrest>');
    reportUnknownElements(policy, ['Rate'], report);
    expect(itemsOf(report).notTranslated).toEqual(['SpikeArrest SA: <Surprise>: an element this import does not know for this policy type', 'SpikeArrest SA: <Another>: an element this import does not know for this policy type']);
    expect(report.notTranslated.map((item) => item.line)).toEqual([3, 4]);
  });
});
