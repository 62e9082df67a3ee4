import { describe, expect, it } from 'vitest';
import { translateJsonThreat } from '../../../../src/migration/apigee/policies/json-threat.js';
import { itemsOf, loadError, translateWith } from '../../../helpers/apigee.js';

const translate = (inner: string) => translateWith(translateJsonThreat, `<JSONThreatProtection name="JTP">${inner}</JSONThreatProtection>`);
const ALL_LIMITS = '<ContainerDepth>4</ContainerDepth><ObjectEntryCount>5</ObjectEntryCount><ArrayElementCount>6</ArrayElementCount><ObjectEntryNameLength>20</ObjectEntryNameLength><StringValueLength>50</StringValueLength>';

describe('migration/apigee/policies/json-threat: JSONThreatProtection -> json-threat', () => {
  it('carries each limit to its key, refuses malformed JSON as Apigee\'s parser does, and sets no body size of its own', () => {
    const { result, report } = translate(`<Source>request</Source>${ALL_LIMITS}`);
    expect(result.entries).toEqual([
      {
        name: 'orders.P',
        kind: 'json-threat',
        description: 'Imported from Apigee JSONThreatProtection "JTP", bundles/orders/apiproxy/policies/P.xml.',
        max_depth: 4,
        max_object_entries: 5,
        max_array_elements: 6,
        max_name_length: 20,
        max_string_length: 50,
        max_body_size: 'unlimited',
        require_valid_json: true,
      },
    ]);
    expect(loadError(result.entries[0]!)).toBeUndefined();
    expect(report.complete).toBe(true);
    expect(itemsOf(report).translated).toContain('JSONThreatProtection JTP: <ContainerDepth>4 -> max_depth: 4');
  });

  it('leaves a limit Apigee does not set unlimited, as Apigee does', () => {
    const { result, report } = translate('<ContainerDepth>4</ContainerDepth>');
    expect(result.entries[0]).toMatchObject({ max_depth: 4, max_object_entries: 'unlimited', max_array_elements: 'unlimited', max_name_length: 'unlimited', max_string_length: 'unlimited' });
    expect(loadError(result.entries[0]!)).toBeUndefined();
    expect(itemsOf(report).translated).toContain('JSONThreatProtection JTP: no <StringValueLength> -> max_string_length: unlimited');
  });

  it.each([['0'], ['-1'], ['ten'], ['4.5'], ['']])('leaves a limit of %j behind (not a positive whole number) and writes no policy: no limit is switched off in its place', (text) => {
    const { result, report } = translate(`<ContainerDepth>${text}</ContainerDepth><ObjectEntryCount>5</ObjectEntryCount>`);
    expect(result).toEqual({ entries: [], withheld: true });
    expect(itemsOf(report).notTranslated).toEqual([`JSONThreatProtection JTP: <ContainerDepth>${text}: not a positive whole number; Apigee's reference does not say what it means`]);
  });

  it.each([['<Source>request</Source>'], ['<Source>message</Source>'], ['no <Source> (request)']])('inspects requests for %s', (source) => {
    expect(translate(source.startsWith('<') ? source : '').result.entries).toHaveLength(1);
  });

  it.each([['response'], ['calloutResponse']])('writes nothing for <Source>%s</Source>: the gateway inspects requests only', (source) => {
    const { result, report } = translate(`<Source>${source}</Source>${ALL_LIMITS}`);
    expect(result.entries).toEqual([]);
    expect(itemsOf(report).notTranslated).toEqual([`JSONThreatProtection JTP: <Source>${source}: the gateway inspects requests only, never an upstream's response`]);
  });

  it('states what the gateway inspects beyond Apigee (application/*+json, encodings, charsets) and the body limit that still applies', () => {
    expect(itemsOf(translate(ALL_LIMITS).report).differences).toEqual([expect.stringMatching(/application\/\*\+json.*limits\.body_size/)]);
  });

  it('reports an element it does not know', () => {
    expect(itemsOf(translate('<ArrayDepth>3</ArrayDepth>').report).notTranslated).toEqual(['JSONThreatProtection JTP: <ArrayDepth>: an element this import does not know for this policy type']);
  });
});
