import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BundleError } from '../../../src/migration/apigee/bundle.js';
import { importApigee, renderAttachments, type ApigeeImport } from '../../../src/migration/apigee/import-bundles.js';
import { readPolicyFolder } from '../../../src/policies/policy-file.js';
import { itemsOf } from '../../helpers/apigee.js';

/**
 * importApigee over real bundle folders: the fixtures of the end-to-end test
 * (test/fixtures/apigee) for the whole picture, and small bundles written
 * here for each rule of putting the bundles together. What the imported
 * gateway then answers is test/migration/apigee/end-to-end.test.ts.
 */
const FIXTURES = 'test/fixtures/apigee';
let work: string;
let made = 0;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tg-import-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** An API proxy bundle folder: a descriptor, these policies, one proxy endpoint. */
async function proxyBundle(name: string, options: { basePath: string; steps: string[]; policies: Record<string, string>; url?: string; flows?: string }): Promise<string> {
  const files: Record<string, string> = {
    [`apiproxy/${name}.xml`]: `<APIProxy name="${name}"/>`,
    'apiproxy/proxies/default.xml': `<ProxyEndpoint name="default"><PreFlow><Request>${options.steps.map((step) => `<Step><Name>${step}</Name></Step>`).join('')}</Request></PreFlow>${options.flows ?? ''}<HTTPProxyConnection><BasePath>${options.basePath}</BasePath></HTTPProxyConnection>${options.url === undefined ? '<RouteRule name="noroute"/>' : `<RouteRule name="r"><URL>${options.url}</URL></RouteRule>`}</ProxyEndpoint>`,
  };
  for (const [file, xml] of Object.entries(options.policies)) files[`apiproxy/policies/${file}.xml`] = xml;
  const root = join(work, `${++made}`, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

const VERIFY = '<OAuthV2 name="V"><Operation>VerifyAccessToken</Operation></OAuthV2>';
const spikeArrest = (name: string, rate = '10ps') => `<SpikeArrest name="${name}"><Rate>${rate}</Rate></SpikeArrest>`;

/** Writes the import's files into a fresh folder and loads it as serve and check would. */
async function loadWritten(result: ApigeeImport): Promise<string[]> {
  const folder = join(work, `${++made}`, 'policies');
  await mkdir(folder, { recursive: true });
  for (const [name, text] of result.files) await writeFile(join(folder, name), text);
  return (await readPolicyFolder(folder)).map((definition) => definition.name);
}

describe('migration/apigee/import-bundles: the fixture bundles, imported together', () => {
  let result: ApigeeImport;
  beforeAll(async () => {
    result = await importApigee([`${FIXTURES}/score-v2`, `${FIXTURES}/threat-protection`, `${FIXTURES}/oauth`]);
  });

  it('is complete', () => {
    expect(itemsOf(result.report).notTranslated).toEqual([]);
    expect(result.report.complete).toBe(true);
  });

  it('writes one policy file per bundle that has entries, named after it, in the policies folder\'s own format', async () => {
    expect([...result.files.keys()]).toEqual(['apigee-business-score-v2.yaml', 'apigee-threat-protection.yaml', 'apigee-oauth.yaml']);
    expect(result.files.get('apigee-oauth.yaml')).toMatch(/^# Imported from the Apigee API proxy bundle oauth \(test\/fixtures\/apigee\/oauth\)\n# by `token-gateway import apigee`/);
    expect(result.files.get('apigee-threat-protection.yaml')).toMatch(/^# Imported from the Apigee shared flow bundle threat-protection/);
    expect(parse(result.files.get('apigee-oauth.yaml') ?? '')).toEqual({
      policies: [{ name: 'oauth.SA-Token', kind: 'spike-arrest', description: expect.stringContaining('SA-Token'), rate: '600pm', burst: 0, identifier: 'ip' }],
    });
    expect(await loadWritten(result)).toHaveLength(9);
  });

  it('attaches the shared flow\'s policies where the FlowCallout ran, the endpoint chain under /oauth2 and the token lifetimes', () => {
    const shared = ['threat-protection.JTP-Body', 'threat-protection.RE-Common.query-q', 'threat-protection.RE-Common.header-X-Customer-Reference', 'threat-protection.RE-Common.json-1'];
    const upstream = 'https://score-backend.example.internal';
    expect(result.attachments).toEqual({
      tokens: { access_ttl: '30m', refresh_ttl: '24h' },
      policies: { endpoints: { '/oauth2/v1/token': ['oauth.SA-Token'] } },
      routes: [
        { path: '/business/score/v2/directors', upstream, policies: ['business-score-v2.AC-Partners', ...shared, 'business-score-v2.RE-Directors.uri-path', 'business-score-v2.RE-Directors.json-1'] },
        { path: '/business/score/v2/bulk', upstream, policies: ['business-score-v2.AC-Partners', ...shared, 'business-score-v2.SA-Bulk'] },
        { path: '/business/score/v2', upstream, policies: ['business-score-v2.AC-Partners', ...shared] },
      ],
    });
  });

  it('states once that refusals are rendered by the error catalogue, and which policies now run before the token is verified', () => {
    const { differences } = itemsOf(result.report);
    expect(differences.filter((difference) => difference.startsWith('every refusal: rendered by the gateway\'s error catalogue'))).toHaveLength(1);
    expect(differences).toContainEqual(expect.stringMatching(/^route \/business\/score\/v2: threat-protection\.JTP-Body, .* ran after VerifyAccessToken in Apigee and run before the token is verified here/));
  });

  it('prints the gateway.yaml keys to merge: tokens, the policies folder with its endpoint chains, the routes', () => {
    const printed = renderAttachments(result.attachments, 'policies/imported');
    expect(printed.split('\n')[0]).toBe('# gateway.yaml keys from `token-gateway import apigee`: merge them into your gateway.yaml.');
    expect(parse(printed)).toEqual({ tokens: result.attachments.tokens, policies: { folder: 'policies/imported', endpoints: { '/oauth2/v1/token': ['oauth.SA-Token'] } }, routes: result.attachments.routes });
  });
});

describe('migration/apigee/import-bundles: putting bundles together', () => {
  it('fails as a whole, before any import, for a source that is not a bundle', async () => {
    await expect(importApigee([`${FIXTURES}/oauth`, `${FIXTURES}`])).rejects.toBeInstanceOf(BundleError);
  });

  it.each<[string, string]>([
    ['the same name', 'orders'],
    ['the same name in another letter case', 'Orders'],
  ])('refuses two bundles of %s: one bundle\'s policies would silently replace the other\'s', async (_case, second) => {
    const one = await proxyBundle('orders', { basePath: '/a', url: 'https://a.example', steps: ['V', 'SA'], policies: { V: VERIFY, SA: spikeArrest('SA', '1ps') } });
    const two = await proxyBundle(second, { basePath: '/b', url: 'https://b.example', steps: ['V', 'SA'], policies: { V: VERIFY, SA: spikeArrest('SA', '100ps') } });
    const refusal = await importApigee([one, two]).then(() => undefined, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(BundleError);
    expect((refusal as Error).message).toBe(`${one} and ${two} are both the bundle "${second}": their policies and files would have the same names; import one of them`);
  });

  it('writes policy names that load together: two Apigee names our rules spell alike stay two policies', async () => {
    const bundle = await proxyBundle('orders', { basePath: '/orders', url: 'https://orders.example', steps: ['V', 'SA Bulk', 'SA-Bulk'], policies: { V: VERIFY, a: spikeArrest('SA Bulk', '1ps'), b: spikeArrest('SA-Bulk', '2ps') } });
    const result = await importApigee([bundle]);
    expect(result.report.complete).toBe(true);
    const names = await loadWritten(result);
    expect(names).toEqual(['orders.SA-Bulk-553d69a6', 'orders.SA-Bulk']);
    expect(result.attachments.routes[0]?.policies).toEqual(names);
  });

  it('writes a route only behind a VerifyAccessToken: a public Apigee API is left behind, since every route requires a Bearer token', async () => {
    const bundle = await proxyBundle('public', { basePath: '/public', url: 'https://public.example', steps: ['SA'], policies: { SA: spikeArrest('SA') } });
    const result = await importApigee([bundle]);
    expect(result.attachments.routes).toEqual([{ path: '/public', upstream: 'https://public.example', policies: ['public.SA'] }]);
    expect(itemsOf(result.report).notTranslated).toEqual(['route /public: no VerifyAccessToken runs on it: the API is public on Apigee, and every route of the gateway requires a Bearer access token']);
  });

  it('states nothing about order when every policy runs before VerifyAccessToken already', async () => {
    const bundle = await proxyBundle('orders', { basePath: '/orders', url: 'https://orders.example', steps: ['SA', 'V'], policies: { V: VERIFY, SA: spikeArrest('SA') } });
    expect(itemsOf((await importApigee([bundle])).report).differences.filter((difference) => difference.includes('ran after VerifyAccessToken'))).toEqual([]);
  });

  it('leaves the second of two proxy endpoints with the same path behind', async () => {
    const one = await proxyBundle('one', { basePath: '/orders', url: 'https://one.example', steps: ['V'], policies: { V: VERIFY } });
    const two = await proxyBundle('two', { basePath: '/orders/', url: 'https://two.example', steps: ['V'], policies: { V: VERIFY } });
    const result = await importApigee([one, two]);
    expect(result.attachments.routes.map((route) => route.upstream)).toEqual(['https://one.example']);
    expect(itemsOf(result.report).notTranslated).toEqual([expect.stringMatching(/^route \/orders: another proxy endpoint imported here has the same path \(.*\/one\/apiproxy\/proxies\/default\.xml\)$/)]);
  });

  it('leaves a second, different token lifetime behind: the gateway has one', async () => {
    const token = (ttl: string) => `<OAuthV2 name="OA"><Operation>GenerateAccessToken</Operation><ExpiresIn>${ttl}</ExpiresIn></OAuthV2>`;
    // Two token proxies on paths of their own (the gateway's endpoints would be one path, refused before their lifetimes are read).
    const one = await proxyBundle('one', { basePath: '/tokens/a', url: 'https://a.example', steps: ['V', 'OA'], policies: { V: VERIFY, OA: token('1800000') } });
    const two = await proxyBundle('two', { basePath: '/tokens/b', url: 'https://b.example', steps: ['V', 'OA'], policies: { V: VERIFY, OA: token('3600000') } });
    const result = await importApigee([one, two]);
    expect(result.attachments.tokens).toEqual({ access_ttl: '30m' });
    expect(itemsOf(result.report).notTranslated).toEqual(['step OA: tokens.access_ttl 1h: another token policy sets 30m; the gateway has one lifetime']);
    // The second policy is in one list only: its lifetime line (and its difference) are taken back.
    expect(itemsOf(result.report).translated.filter((item) => item.startsWith('OAuthV2 OA: <ExpiresIn>'))).toEqual(['OAuthV2 OA: <ExpiresIn>1800000 -> tokens.access_ttl: 30m']);
    expect(result.report.differences.filter((item) => item.what === 'OAuthV2 OA')).toHaveLength(1);
  });

  it('accounts for every policy no flow runs: translated into nothing, FlowCallouts aside', async () => {
    const bundle = await proxyBundle('orders', {
      basePath: '/orders',
      url: 'https://orders.example',
      steps: ['V'],
      policies: { V: VERIFY, Idle: spikeArrest('Idle'), Quota: '<Quota name="Quota"/>', FC: '<FlowCallout name="FC"><SharedFlowBundle>x</SharedFlowBundle></FlowCallout>' },
    });
    const result = await importApigee([bundle]);
    expect(itemsOf(result.report).translated).toEqual(expect.arrayContaining(['SpikeArrest Idle -> nothing (no flow of the bundles runs it)', 'Quota Quota -> nothing (no flow of the bundles runs it)']));
    expect(itemsOf(result.report).translated.filter((item) => item.startsWith('FlowCallout'))).toEqual([]);
    expect(result.files.size).toBe(0);
  });

  it('reads a shared flow bundle given alone as policies no flow runs, and writes no file for it', async () => {
    const result = await importApigee([`${FIXTURES}/threat-protection`]);
    expect(result.files.size).toBe(0);
    expect(result.attachments).toEqual({ routes: [] });
    expect(itemsOf(result.report).translated).toEqual(['JSONThreatProtection JTP-Body -> nothing (no flow of the bundles runs it)', 'RegularExpressionProtection RE-Common -> nothing (no flow of the bundles runs it)']);
  });

  it('writes names that load together when a RegularExpressionProtection tests one thing with several elements', async () => {
    const regex = '<RegularExpressionProtection name="RE"><QueryParam name="q"><Pattern>a</Pattern></QueryParam><QueryParam name="q"><Pattern>b</Pattern></QueryParam>' +
      '<Header name="X-A"><Pattern>c</Pattern></Header><Variable name="request.header.X-A"><Pattern>d</Pattern></Variable><URIPath><Pattern>e</Pattern></URIPath><Variable name="request.path"><Pattern>f</Pattern></Variable></RegularExpressionProtection>';
    const bundle = await proxyBundle('orders', { basePath: '/orders', url: 'https://orders.example', steps: ['V', 'RE'], policies: { V: VERIFY, RE: regex } });
    const result = await importApigee([bundle]);
    expect(result.report.complete).toBe(true);
    expect(await loadWritten(result)).toEqual(['orders.RE.query-q', 'orders.RE.header-X-A', 'orders.RE.uri-path']);
  });

  it('never writes one name twice: a policy whose entry would take a name already given is left behind instead', async () => {
    const regex = '<RegularExpressionProtection name="RE"><QueryParam name="q"><Pattern>a</Pattern></QueryParam><URIPath><Pattern>b</Pattern></URIPath></RegularExpressionProtection>';
    const bundle = await proxyBundle('orders', { basePath: '/orders', url: 'https://orders.example', steps: ['V', 'RE', 'RE.query-q'], policies: { V: VERIFY, RE: regex, SA: spikeArrest('RE.query-q') } });
    const result = await importApigee([bundle]);
    expect(itemsOf(result.report).notTranslated).toEqual(['SpikeArrest RE.query-q: its entry would be named orders.RE.query-q, a name already given to RegularExpressionProtection RE']);
    expect(itemsOf(result.report).translated.filter((item) => item.includes('RE.query-q ->'))).toEqual([]);
    const names = await loadWritten(result);
    expect(names).toEqual(['orders.RE.query-q', 'orders.RE.uri-path']);
    expect(result.attachments.routes[0]?.policies).toEqual(names);
  });

  it('says how a continueOnError policy relates to mode: report, and never that no flow runs it', async () => {
    const bundle = await proxyBundle('orders', { basePath: '/orders', url: 'https://orders.example', steps: ['V', 'Soft'], policies: { V: VERIFY, Soft: '<SpikeArrest name="Soft" continueOnError="true"><Rate>1ps</Rate></SpikeArrest>' } });
    const { report } = await importApigee([bundle]);
    expect(report.notTranslated).toEqual([expect.objectContaining({ what: 'step Soft (continueOnError="true")', todo: expect.stringMatching(/nearest equivalent is mode: report .* add mode: report to the entry by hand/) })]);
    expect(report.notTranslated[0]?.why).not.toMatch(/no such mode/);
    expect(itemsOf(report).translated.filter((item) => item.startsWith('SpikeArrest Soft'))).toEqual([]);
  });

  it('translates into nothing, and writes nowhere, a policy that only flows Apigee never reaches run', async () => {
    const flows = '<Flows><Flow name="all"><Request/></Flow><Flow name="late"><Request><Step><Name>Late</Name></Step></Request><Condition>proxy.pathsuffix MatchesPath "/late/**"</Condition></Flow></Flows>';
    const bundle = await proxyBundle('orders', { basePath: '/orders', url: 'https://orders.example', steps: ['V'], policies: { V: VERIFY, Late: spikeArrest('Late') }, flows });
    const result = await importApigee([bundle]);
    expect(result.report.complete).toBe(true);
    expect(result.files.size).toBe(0);
    const { translated } = itemsOf(result.report);
    expect(translated).toEqual(expect.arrayContaining(['flow late -> nothing: never reached in Apigee (flow all before it has no condition)', 'step Late -> nothing (flow late is never reached)', 'SpikeArrest Late -> nothing (no flow of the bundles runs it)']));
    expect(translated.filter((item) => item.includes('spike-arrest'))).toEqual([]);
  });

  it('leaves a bundle with nothing to import behind, so that the import is not complete', async () => {
    const root = join(work, `${++made}`, 'empty2');
    await mkdir(join(root, 'apiproxy'), { recursive: true });
    await writeFile(join(root, 'apiproxy', 'empty2.xml'), '<APIProxy name="empty2"/>');
    const result = await importApigee([root]);
    expect(result.report.complete).toBe(false);
    expect(itemsOf(result.report).notTranslated).toEqual(['bundle empty2: nothing to import: no proxy endpoint (apiproxy/proxies/*.xml), shared flow or policy in it']);
    expect(result.report.render()).toMatch(/import INCOMPLETE/);
  });

  it('places an empty policy file at its first line', async () => {
    const bundle = await proxyBundle('orders', { basePath: '/orders', url: 'https://orders.example', steps: ['V'], policies: { V: VERIFY, RE: '' } });
    const { report } = await importApigee([bundle]);
    expect(report.render()).toMatch(/\/apiproxy\/policies\/RE\.xml:1: the file: not well-formed XML/);
  });

  it('prints the policies folder even when no endpoint chain or lifetime was imported', () => {
    expect(parse(renderAttachments({ routes: [] }, 'out'))).toEqual({ policies: { folder: 'out' }, routes: [] });
  });
});
