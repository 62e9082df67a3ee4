import { describe, expect, it } from 'vitest';
import { identifierOf, translateSpikeArrest } from '../../../../src/migration/apigee/policies/spike-arrest.js';
import { itemsOf, loadError, translateWith } from '../../../helpers/apigee.js';

const spikeArrest = (inner: string) => `<SpikeArrest name="SA-Token" continueOnError="false" enabled="true">${inner}</SpikeArrest>`;
const translate = (inner: string) => translateWith(translateSpikeArrest, spikeArrest(inner));

describe('migration/apigee/policies/spike-arrest: SpikeArrest -> spike-arrest', () => {
  it('carries the rate over as written, smoothed as Apigee smooths it, with where it came from', () => {
    const { result, report } = translate('<DisplayName>Token requests</DisplayName><Rate>600pm</Rate><Identifier ref="proxy.client.ip"/>');
    expect(result.entries).toEqual([
      {
        name: 'orders.P',
        kind: 'spike-arrest',
        description: 'Imported from Apigee SpikeArrest "SA-Token" (Token requests), bundles/orders/apiproxy/policies/P.xml.',
        rate: '600pm',
        // Written out (the schema's default), as the doc and the report say: Apigee has no burst.
        burst: 0,
        identifier: 'ip',
      },
    ]);
    expect(loadError(result.entries[0]!)).toBeUndefined();
    expect(itemsOf(report).translated).toContain('SpikeArrest SA-Token -> spike-arrest orders.P (rate 600pm, smoothed as in Apigee, burst 0)');
    expect(report.complete).toBe(true);
  });

  it.each<[string, string, Record<string, string>]>([
    // [Identifier, what it means here, the entry's keys]
    ['none', '', { identifier: 'all' }],
    ['client_id', '<Identifier ref="client_id"/>', { identifier: 'client_id' }],
    ['apigee.client_id', '<Identifier ref="apigee.client_id"/>', { identifier: 'client_id' }],
    ['client.ip', '<Identifier ref="client.ip"/>', { identifier: 'ip' }],
    ['proxy.client.ip', '<Identifier ref="proxy.client.ip"/>', { identifier: 'ip' }],
    ['a request header', '<Identifier ref="request.header.X-Tenant"/>', { identifier: 'header', header: 'X-Tenant' }],
  ])('counts callers by Identifier %s', (_what, identifier, keys) => {
    const { result, report } = translate(`<Rate>30ps</Rate>${identifier}`);
    expect(result.entries[0]).toMatchObject({ rate: '30ps', ...keys });
    expect(loadError(result.entries[0]!)).toBeUndefined();
    expect(report.complete).toBe(true);
  });

  it('states that an unresolved identifier is counted by client address here, and that Apigee shared one counter for those', () => {
    const { report } = translate('<Rate>30ps</Rate><Identifier ref="client_id"/>');
    expect(itemsOf(report).differences).toContainEqual(expect.stringMatching(/counted by its client address here; Apigee counts such requests under one shared unresolved identifier/));
  });

  it.each<[string, string]>([
    ['a query parameter', 'request.queryparam.key'],
    ['an API key\'s app', 'verifyapikey.VK.client_id'],
    ['a header name with a space', 'request.header.X Tenant'],
    ['no name', ''],
  ])('leaves an Identifier of %s behind and writes no policy: no stand-in identifier that counts callers otherwise', (_what, ref) => {
    const { result, report } = translate(`<Rate>30ps</Rate><Identifier ref="${ref}"/>`);
    expect(result).toEqual({ entries: [], withheld: true });
    expect(report.notTranslated[0]?.todo).toMatch(/write the policy by hand: it is not written/);
    expect(itemsOf(report).notTranslated).toEqual([`SpikeArrest SA-Token: <Identifier ref="${ref}">: the gateway counts callers by client_id, client address, user (token subject) or one header; this variable is none of them`]);
  });

  it.each<[string, string, string]>([
    ['no Rate', '<Identifier ref="client_id"/>', 'SpikeArrest SA-Token: <Rate>: no <Rate>'],
    ['a Rate read from a flow variable', '<Rate ref="kvm.rate">30ps</Rate>', 'SpikeArrest SA-Token: <Rate ref="kvm.rate">: the rate is read from a flow variable at run time; a policy file holds one rate'],
  ])('writes nothing for %s, and says so', (_what, inner, item) => {
    const { result, report } = translate(inner);
    expect(result.entries).toEqual([]);
    expect(itemsOf(report).notTranslated).toEqual([item]);
  });

  it('leaves a MessageWeight behind: every request counts as one here', () => {
    const { result, report } = translate('<Rate>30ps</Rate><MessageWeight ref="request.header.weight"/>');
    expect(result.entries).toHaveLength(1);
    expect(itemsOf(report).notTranslated).toEqual([expect.stringMatching(/^SpikeArrest SA-Token: <MessageWeight ref="request.header.weight">: every request counts as one here/)]);
  });

  it.each<[string, boolean]>([
    ['<UseEffectiveCount>true</UseEffectiveCount>', false],
    ['<UseEffectiveCount>TRUE</UseEffectiveCount>', false],
    ['<UseEffectiveCount>false</UseEffectiveCount>', true],
    ['', true],
  ])('with %j: complete %s (a sliding window without smoothing has no counterpart)', (inner, complete) => {
    const { report } = translate(`<Rate>30ps</Rate>${inner}`);
    expect(report.complete).toBe(complete);
    if (complete) expect(itemsOf(report).differences).toContainEqual(expect.stringMatching(/^SpikeArrest SA-Token: Apigee counted per message processor/));
    else expect(itemsOf(report).notTranslated).toEqual([expect.stringMatching(/^SpikeArrest SA-Token: <UseEffectiveCount>true: Apigee then counts a sliding window/)]);
  });

  it('reports an element it does not know', () => {
    const { report } = translate('<Rate>30ps</Rate><Burst>10</Burst>');
    expect(itemsOf(report).notTranslated).toEqual(['SpikeArrest SA-Token: <Burst>: an element this import does not know for this policy type']);
  });

  it.each<[string, ReturnType<typeof identifierOf>]>([
    ['client_id', { identifier: 'client_id' }],
    ['apigee.client_id', { identifier: 'client_id' }],
    ['client.ip', { identifier: 'ip' }],
    ['proxy.client.ip', { identifier: 'ip' }],
    ['request.header.x-api-key', { identifier: 'header', header: 'x-api-key' }],
    ['request.header.', undefined],
    ['request.header.a:b', undefined],
    ['request.headers.x', undefined],
    ['developer.email', undefined],
    ['CLIENT_ID', undefined],
  ])('identifierOf(%j) is %j', (ref, identifier) => {
    expect(identifierOf(ref)).toEqual(identifier);
  });
});
