import { describe, expect, it } from 'vitest';
import { readPolicies } from '../../../src/migration/apigee/policy-xml.js';
import { ImportReport } from '../../../src/migration/apigee/report.js';
import { linksOf, type BundleScope, type SharedFlow, type StepContext } from '../../../src/migration/apigee/steps.js';
import { parseXml } from '../../../src/migration/apigee/xml.js';
import { bundleOf, itemsOf } from '../../helpers/apigee.js';

const POLICIES: Record<string, string> = {
  'policies/SA.xml': '<SpikeArrest name="SA"><Rate>30ps</Rate></SpikeArrest>',
  'policies/VAT.xml': '<OAuthV2 name="VAT"><Operation>VerifyAccessToken</Operation></OAuthV2>',
  'policies/OA.xml': '<OAuthV2 name="OA"><Operation>GenerateAccessToken</Operation><ExpiresIn>60000</ExpiresIn></OAuthV2>',
  'policies/Off.xml': '<SpikeArrest name="Off" enabled="false"><Rate>1ps</Rate></SpikeArrest>',
  'policies/Soft.xml': '<SpikeArrest name="Soft" continueOnError="true"><Rate>1ps</Rate></SpikeArrest>',
  'policies/FC.xml': '<FlowCallout name="FC"><SharedFlowBundle>threats</SharedFlowBundle></FlowCallout>',
  'policies/FC-Params.xml': '<FlowCallout name="FC-Params"><SharedFlowBundle>threats</SharedFlowBundle><Parameters><Parameter name="p">v</Parameter></Parameters></FlowCallout>',
  'policies/FC-Missing.xml': '<FlowCallout name="FC-Missing"><SharedFlowBundle>elsewhere</SharedFlowBundle></FlowCallout>',
};

function scopeOf(files: Record<string, string>, report: ImportReport, name = 'orders', kind: 'apiproxy' | 'sharedflowbundle' = 'apiproxy'): BundleScope {
  const bundle = bundleOf(files, { name, kind });
  return { bundle, policies: readPolicies(bundle, report), translated: new Map() };
}

const stepsOf = (...names: Array<string | [string, string]>) =>
  parseXml(`<Request>${names.map((name) => (typeof name === 'string' ? `<Step><Name>${name}</Name></Step>` : `<Step><Name>${name[0]}</Name><Condition>${name[1]}</Condition></Step>`)).join('\n')}</Request>`, 'proxies/default.xml');

/** The proxy's scope and a shared flow "threats" whose steps run RE and SA of its own bundle, and may call itself. */
function setting(flowSteps = '<Step><Name>SA</Name></Step>') {
  const report = new ImportReport();
  const scope = scopeOf(POLICIES, report);
  const flowScope = scopeOf({ 'policies/SA.xml': '<SpikeArrest name="SA"><Rate>5ps</Rate></SpikeArrest>', 'policies/Again.xml': '<FlowCallout name="Again"><SharedFlowBundle>threats</SharedFlowBundle></FlowCallout>' }, report, 'threats', 'sharedflowbundle');
  const flow: SharedFlow = { scope: flowScope, steps: parseXml(`<SharedFlow>${flowSteps}</SharedFlow>`, 'sharedflows/default.xml'), file: 'bundles/threats/sharedflowbundle/sharedflows/default.xml' };
  const context: StepContext = { report, sharedFlows: new Map([['threats', flow]]) };
  const links = (...names: Array<string | [string, string]>) => linksOf(stepsOf(...names), scope, 'bundles/orders/apiproxy/proxies/default.xml', context);
  return { report, scope, flowScope, links };
}

describe('migration/apigee/steps: the steps of a flow, each accounted for', () => {
  it('links each translated step, in order, with the names of its entries and what it says about tokens', () => {
    const { links, report } = setting();
    expect(links('SA', 'VAT', 'OA').map(({ names, verifiesToken, tokens, step }) => ({ names, verifiesToken, tokens, step }))).toEqual([
      { names: ['orders.SA'], verifiesToken: false, tokens: undefined, step: 'SA' },
      { names: [], verifiesToken: true, tokens: undefined, step: 'VAT' },
      { names: [], verifiesToken: false, tokens: { access_ttl: '1m' }, step: 'OA' },
    ]);
    expect(report.complete).toBe(true);
  });

  it('places each link at its step: the flow file and the step\'s line', () => {
    const { links } = setting();
    expect(links('SA', 'VAT').map((link) => link.place)).toEqual([
      { file: 'bundles/orders/apiproxy/proxies/default.xml', line: 1 },
      { file: 'bundles/orders/apiproxy/proxies/default.xml', line: 2 },
    ]);
  });

  it('translates a policy once however many steps run it', () => {
    const { links, scope, report } = setting();
    expect(links('SA', 'SA').map((link) => link.names)).toEqual([['orders.SA'], ['orders.SA']]);
    expect([...scope.translated.keys()]).toEqual(['SA']);
    expect(report.translated.filter((item) => item.what === 'SpikeArrest SA')).toHaveLength(1);
  });

  it.each<[string, string | [string, string], string | RegExp]>([
    // [case, the step, the report item]
    ['a step naming no policy of the bundle', 'Nowhere', 'step Nowhere: no policy of that name in the bundle (Apigee would not deploy it)'],
    ['a step with a condition', ['SA', 'request.verb = "POST"'], 'step SA (Condition request.verb = "POST"): a step condition: the gateway runs a route\'s policies on every request of the route'],
    ['a policy that goes on when it fails (continueOnError)', 'Soft', /^step Soft \(continueOnError="true"\): Apigee lets the request go on when this policy refuses it, so its verdict never counted/],
    ['a FlowCallout to a shared flow not imported', 'FC-Missing', 'step FC-Missing (FlowCallout to elsewhere): the shared flow "elsewhere" is not among the bundles imported'],
  ])('leaves %s behind, linking nothing', (_case, step, item) => {
    const { links, report } = setting();
    expect(links(step)).toEqual([]);
    expect(itemsOf(report).notTranslated).toEqual([typeof item === 'string' ? item : expect.stringMatching(item)]);
  });

  it('skips a disabled policy as Apigee does, and says so', () => {
    const { links, report } = setting();
    expect(links('Off')).toEqual([]);
    expect(itemsOf(report).translated).toEqual(['step Off -> nothing (enabled="false": Apigee skips it too)']);
    expect(report.complete).toBe(true);
  });

  it("runs a FlowCallout's shared flow in place: its steps, translated in the shared flow's own bundle", () => {
    const { links, flowScope, report } = setting();
    const linked = links('VAT', 'FC', 'SA');
    expect(linked.map((link) => link.names)).toEqual([[], ['threats.SA'], ['orders.SA']]);
    expect(linked[1]?.place.file).toBe('bundles/threats/sharedflowbundle/sharedflows/default.xml');
    expect([...flowScope.translated.keys()]).toEqual(['SA']);
    expect(itemsOf(report).translated).toContain('step FC -> the steps of shared flow threats, in place');
    expect(report.complete).toBe(true);
  });

  it('leaves the Parameters of a FlowCallout behind (they set flow variables) and still runs the flow', () => {
    const { links, report } = setting();
    expect(links('FC-Params').map((link) => link.names)).toEqual([['threats.SA']]);
    expect(itemsOf(report).notTranslated).toEqual(['step FC-Params (FlowCallout Parameters): parameters set flow variables, and the gateway has none']);
  });

  it('refuses a shared flow that calls itself, naming the cycle, instead of recursing forever', () => {
    const { links, report } = setting('<Step><Name>SA</Name></Step><Step><Name>Again</Name></Step>');
    expect(links('FC').map((link) => link.names)).toEqual([['threats.SA']]);
    expect(itemsOf(report).notTranslated).toEqual(['step Again (FlowCallout to threats): a shared flow that calls itself (threats -> threats)']);
  });

  it('links nothing for a flow part without steps', () => {
    const { scope, report } = setting();
    expect(linksOf(undefined, scope, 'f.xml', { report, sharedFlows: new Map() })).toEqual([]);
    expect(report.translated).toEqual([]);
  });
});
