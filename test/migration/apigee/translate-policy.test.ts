import { describe, expect, it } from 'vitest';
import { ImportReport } from '../../../src/migration/apigee/report.js';
import { translatePolicy } from '../../../src/migration/apigee/translate-policy.js';
import { itemsOf, loadError, policyOf, translated } from '../../helpers/apigee.js';

describe('migration/apigee/translate-policy: one Apigee policy, by its type', () => {
  it.each<[string, string, string | undefined]>([
    // [Apigee type, the policy, the kind it becomes (none: it marks or configures something else)]
    ['SpikeArrest', '<SpikeArrest name="P"><Rate>30ps</Rate></SpikeArrest>', 'spike-arrest'],
    ['JSONThreatProtection', '<JSONThreatProtection name="P"><ContainerDepth>4</ContainerDepth></JSONThreatProtection>', 'json-threat'],
    ['RegularExpressionProtection', '<RegularExpressionProtection name="P"><URIPath><Pattern>x</Pattern></URIPath></RegularExpressionProtection>', 'regex-protection'],
    ['AccessControl', '<AccessControl name="P"><IPRules noRuleMatchAction="ALLOW"/></AccessControl>', 'ip-range'],
    ['OAuthV2', '<OAuthV2 name="P"><Operation>VerifyAccessToken</Operation></OAuthV2>', undefined],
  ])('hands %s to its translator', (_type, xml, kind) => {
    const { result } = translated(xml);
    expect(result.entries.map((entry) => entry.kind)).toEqual(kind ? [kind] : []);
    for (const entry of result.entries) expect(loadError(entry)).toBeUndefined();
  });

  it.each<[string, RegExp]>([
    // [type, what to do instead]: each policy type with no counterpart says what to do about it.
    ['Javascript', /time-of-day policy/],
    ['JavaCallout', /move the logic to the upstream/],
    ['PythonScript', /move the logic to the upstream/],
    ['Quota', /the gateway has no quota/],
    ['KeyValueMapOperations', /no key-value maps/],
    ['VerifyAPIKey', /Bearer access token only/],
    ['XMLThreatProtection', /does not inspect XML bodies/],
    ['AssignMessage', /does not rewrite requests/],
    ['ExtractVariables', /no flow variables/],
    ['RaiseFault', /raises no custom faults/],
    ['ResponseCache', /does not cache responses/],
    ['ServiceCallout', /makes no calls of its own/],
    ['MessageLogging', /one access line per request/],
    ['BasicAuthentication', /does not decode or encode Basic credentials/],
    ['CORS', /adds no CORS headers/],
    ['StatisticsCollector', /carry its effect over by hand/],
  ])('leaves %s behind, saying what to do', (type, todo) => {
    const { result, report } = translated(`<${type} name="P"/>`);
    expect(result.entries).toEqual([]);
    expect(report.notTranslated).toEqual([expect.objectContaining({ what: `${type} P`, why: `no counterpart in the gateway for ${type}`, todo: expect.stringMatching(todo) })]);
  });

  it('never writes an entry its kind would not load: it is reported with the schema\'s words instead', () => {
    const { result, report } = translated('<SpikeArrest name="P"><Rate>lots</Rate></SpikeArrest>');
    expect(result.entries).toEqual([]);
    expect(itemsOf(report).notTranslated).toEqual([expect.stringMatching(/^SpikeArrest P: its translation does not load as a spike-arrest policy \(rate: expected a rate like 30ps or 600pm/)]);
  });

  it('writes nothing of a policy one of whose entries does not load, and lists it as not translated only', () => {
    const { result, report } = translated('<RegularExpressionProtection name="P"><Header name="bad header"><Pattern>x</Pattern></Header><URIPath><Pattern>y</Pattern></URIPath></RegularExpressionProtection>');
    expect(result.entries).toEqual([]);
    expect(itemsOf(report).notTranslated).toEqual([expect.stringMatching(/^RegularExpressionProtection P: its translation does not load as a regex-protection policy \(apply_to\.headers\.0: expected an HTTP header name\)/)]);
    expect(report.translated).toEqual([]);
    expect(report.differences).toEqual([]);
  });

  it.each<[string, string]>([
    ['a rate out of range', '<SpikeArrest name="P"><Rate>200000ps</Rate></SpikeArrest>'],
    ['a rate that is no rate', '<SpikeArrest name="P"><Rate>abc</Rate></SpikeArrest>'],
    ['a limit past what a number holds', '<JSONThreatProtection name="P"><ObjectEntryNameLength>99999999999999999999</ObjectEntryNameLength></JSONThreatProtection>'],
  ])('lists a policy whose translation does not load (%s) as not translated only, never also as translated', (_case, xml) => {
    const { result, report } = translated(xml);
    expect(result.entries).toEqual([]);
    expect(report.notTranslated).toHaveLength(1);
    expect(report.translated).toEqual([]);
    expect(report.differences).toEqual([]);
  });

  it('writes a policy withheld by its translator (a limit it could not carry) nowhere but in not translated', () => {
    const { result, report } = translated('<JSONThreatProtection name="P"><ContainerDepth>0</ContainerDepth><ArrayElementCount>4</ArrayElementCount></JSONThreatProtection>');
    expect(result).toEqual({ entries: [], withheld: true });
    expect(itemsOf(report)).toEqual({ translated: [], differences: [], notTranslated: [expect.stringMatching(/^JSONThreatProtection P: <ContainerDepth>0: not a positive whole number/)] });
  });

  it('refuses a name another policy of the import already has: check would refuse the second', () => {
    const report = new ImportReport();
    const taken = new Map([['orders.P', 'SpikeArrest Other']]);
    const result = translatePolicy(policyOf('<SpikeArrest name="P"><Rate>1ps</Rate></SpikeArrest>'), { report, baseName: 'orders.P', taken });
    expect(result.entries).toEqual([]);
    expect(itemsOf(report)).toEqual({ translated: [], differences: [], notTranslated: ['SpikeArrest P: its entry would be named orders.P, a name already given to SpikeArrest Other'] });
  });

  it('keeps what the translator says beside its entries (a protected route, token lifetimes)', () => {
    expect(translated('<OAuthV2 name="P"><Operation>VerifyAccessToken</Operation></OAuthV2>').result.verifiesToken).toBe(true);
    expect(translated('<OAuthV2 name="P"><Operation>GenerateAccessToken</Operation><ExpiresIn>60000</ExpiresIn></OAuthV2>').result.tokens).toEqual({ access_ttl: '1m' });
  });
});
