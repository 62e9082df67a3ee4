import { describe, expect, it } from 'vitest';
import { attachmentsOfBundle, type Attachment } from '../../../src/migration/apigee/endpoints.js';
import { readPolicies } from '../../../src/migration/apigee/policy-xml.js';
import { ImportReport } from '../../../src/migration/apigee/report.js';
import { bundleOf, itemsOf } from '../../helpers/apigee.js';

const POLICIES: Record<string, string> = {
  'policies/Pre.xml': '<SpikeArrest name="Pre"><Rate>100ps</Rate></SpikeArrest>',
  'policies/Flow.xml': '<SpikeArrest name="Flow"><Rate>10ps</Rate></SpikeArrest>',
  'policies/Other.xml': '<SpikeArrest name="Other"><Rate>5ps</Rate></SpikeArrest>',
  'policies/Post.xml': '<SpikeArrest name="Post"><Rate>1ps</Rate></SpikeArrest>',
  'policies/Target.xml': '<SpikeArrest name="Target"><Rate>2ps</Rate></SpikeArrest>',
  'policies/Cors.xml': '<AssignMessage name="Cors"/>',
};

const step = (name: string) => `<Step><Name>${name}</Name></Step>`;
const flow = (name: string, condition: string | undefined, ...steps: string[]) =>
  `<Flow name="${name}">${condition === undefined ? '' : `<Condition>${condition}</Condition>`}<Request>${steps.map(step).join('')}</Request></Flow>`;
const under = (suffix: string) => `proxy.pathsuffix MatchesPath "${suffix}/**"`;

interface ProxyParts {
  basePath?: string;
  pre?: string[];
  post?: string[];
  flows?: string[];
  routeRules?: string;
  extra?: string;
}

function proxy({ basePath = '/orders/v1', pre = ['Pre'], post = [], flows = [], routeRules = '<RouteRule name="default"><TargetEndpoint>default</TargetEndpoint></RouteRule>', extra = '' }: ProxyParts): string {
  return `<ProxyEndpoint name="default">
<PreFlow><Request>${pre.map(step).join('')}</Request></PreFlow>
<Flows>${flows.join('\n')}</Flows>
<PostFlow><Request>${post.map(step).join('')}</Request></PostFlow>
<HTTPProxyConnection><BasePath>${basePath}</BasePath></HTTPProxyConnection>
${routeRules}${extra}
</ProxyEndpoint>`;
}

const TARGET = '<TargetEndpoint name="default"><HTTPTargetConnection><URL>https://orders.example.internal</URL></HTTPTargetConnection></TargetEndpoint>';

/** The attachments of one proxy endpoint (and targets), as routes or endpoints with their policy names, and the report. */
function attach(proxyXml: string, targets: Record<string, string> = { default: TARGET }) {
  const report = new ImportReport();
  const files: Record<string, string> = { ...POLICIES, 'proxies/default.xml': proxyXml };
  for (const [name, xml] of Object.entries(targets)) files[`targets/${name}.xml`] = xml;
  const bundle = bundleOf(files);
  const attachments = attachmentsOfBundle({ bundle, policies: readPolicies(bundle, report), translated: new Map() }, { report, sharedFlows: new Map() });
  return { attachments: attachments.map(summary), report, items: itemsOf(report) };
}

const summary = (attachment: Attachment) => ({
  kind: attachment.kind,
  path: attachment.path,
  ...(attachment.upstream === undefined ? {} : { upstream: attachment.upstream }),
  names: attachment.links.flatMap((link) => link.names),
});

const names = (...policies: string[]) => policies.map((policy) => `orders.${policy}`);

describe('migration/apigee/endpoints: proxy endpoints as routes', () => {
  it('makes the base path a route to the target\'s URL, running the PreFlow, the PostFlow and the target\'s steps', () => {
    const target = '<TargetEndpoint name="default"><PreFlow><Request><Step><Name>Target</Name></Step></Request></PreFlow><HTTPTargetConnection><URL>https://orders.example.internal/</URL></HTTPTargetConnection></TargetEndpoint>';
    const { attachments, report } = attach(proxy({ post: ['Post'] }), { default: target });
    expect(attachments).toEqual([{ kind: 'route', path: '/orders/v1', upstream: 'https://orders.example.internal', names: names('Pre', 'Post', 'Target') }]);
    expect(report.complete).toBe(true);
  });

  it.each<[string, string, string]>([
    ['a trailing slash', '/orders/v1/', '/orders/v1'],
    ['the root', '/', '/'],
    ['several trailing slashes', '/orders//', '/orders'],
  ])('reads a base path with %s', (_case, basePath, path) => {
    expect(attach(proxy({ basePath })).attachments.map((attachment) => attachment.path)).toEqual([path]);
  });

  it('makes a flow under a path a route of its own, before the base route, with the PreFlow, its steps and the PostFlow', () => {
    const { attachments, items } = attach(proxy({ post: ['Post'], flows: [flow('items', `(proxy.pathsuffix MatchesPath "/items") or (${under('/items')})`, 'Flow')] }));
    expect(attachments).toEqual([
      { kind: 'route', path: '/orders/v1/items', upstream: 'https://orders.example.internal', names: names('Pre', 'Flow', 'Post') },
      { kind: 'route', path: '/orders/v1', upstream: 'https://orders.example.internal', names: names('Pre', 'Post') },
    ]);
    expect(items.differences.filter((difference) => difference.startsWith('flow items'))).toEqual([]);
  });

  it('states that a route also serves its own path when Apigee\'s "/**" needed a segment after it', () => {
    const { items } = attach(proxy({ flows: [flow('items', under('/items'), 'Flow')] }));
    expect(items.differences).toContain('flow items: the route /orders/v1/items also serves /orders/v1/items itself with this flow\'s policies; Apigee\'s "/**" needed a segment after it');
  });

  it('runs a flow without a condition on the base route, and carries over no flow after it (never reached in Apigee)', () => {
    const { attachments, items } = attach(proxy({ flows: [flow('all', undefined, 'Flow'), flow('late', under('/late'), 'Other')] }));
    expect(attachments).toEqual([{ kind: 'route', path: '/orders/v1', upstream: 'https://orders.example.internal', names: names('Pre', 'Flow') }]);
    expect(items.translated).toContain('flow late -> nothing: never reached in Apigee (flow all before it has no condition)');
  });

  it('carries over no flow whose paths an earlier flow takes', () => {
    const { attachments, items } = attach(proxy({ flows: [flow('items', under('/items'), 'Flow'), flow('item-ids', under('/items/ids'), 'Other')] }));
    expect(attachments.map((attachment) => attachment.path)).toEqual(['/orders/v1/items', '/orders/v1']);
    expect(items.translated).toContain('flow item-ids -> nothing: never reached in Apigee (an earlier flow takes every path under /orders/v1/items)');
  });

  it('keeps sibling flows whose names only share a prefix apart (/item is not under /items)', () => {
    const { attachments } = attach(proxy({ flows: [flow('items', under('/items'), 'Flow'), flow('item', under('/item'), 'Other')] }));
    expect(attachments.map((attachment) => attachment.path)).toEqual(['/orders/v1/items', '/orders/v1/item', '/orders/v1']);
  });

  it.each<[string, string, RegExp]>([
    ['one exact path', 'proxy.pathsuffix MatchesPath "/items"', /one exact path: a route of the gateway is a prefix/],
    ['the verb', 'request.verb = "POST"', /a condition a route cannot express/],
    ['a path and the verb', `(${under('/items')}) and (request.verb = "POST")`, /a condition a route cannot express/],
  ])('leaves a flow on %s behind, and attaches its policies nowhere', (_case, condition, why) => {
    const { attachments, items } = attach(proxy({ flows: [flow('f', condition, 'Flow')] }));
    expect(attachments.flatMap((attachment) => attachment.names)).not.toContain('orders.Flow');
    expect(items.notTranslated).toEqual([expect.stringMatching(new RegExp(`^flow f \\(Condition .*\\): ${why.source}`))]);
  });

  it('leaves response steps behind: the gateway relays responses as they are', () => {
    const xml = proxy({}).replace('<PreFlow><Request>', '<PreFlow><Response><Step><Name>Cors</Name></Step></Response><Request>');
    expect(attach(xml).items.notTranslated).toEqual(["response step Cors: it runs on the upstream's response, and the gateway relays responses as they are"]);
  });

  it('states that fault rules do not carry over, and ignores empty ones', () => {
    expect(attach(proxy({ extra: '<FaultRules><FaultRule name="x"><Step><Name>Cors</Name></Step></FaultRule></FaultRules><DefaultFaultRule/>' })).items.differences).toContainEqual(expect.stringMatching(/^<FaultRules>: refusals are rendered by the gateway's error catalogue/));
    expect(attach(proxy({ extra: '<FaultRules/>' })).items.differences.filter((difference) => difference.includes('FaultRule'))).toEqual([]);
  });

  it('accounts for the steps of a PostClientFlow but attaches them nowhere', () => {
    const { attachments, items } = attach(proxy({ extra: '<PostClientFlow><Request><Step><Name>Other</Name></Step></Request></PostClientFlow>' }));
    expect(attachments.flatMap((attachment) => attachment.names)).not.toContain('orders.Other');
    expect(items.translated).toContain('SpikeArrest Other -> spike-arrest orders.Other (rate 5ps, smoothed as in Apigee, burst 0)');
  });

  it('reports a proxy or target file it cannot read', () => {
    expect(attach('<ProxyEndpoint>').items.notTranslated).toEqual([expect.stringMatching(/^the file: not well-formed XML/)]);
    expect(attach(proxy({}), { default: '<TargetEndpoint' }).items.notTranslated).toContainEqual(expect.stringMatching(/^the file: not well-formed XML/));
  });
});

describe('migration/apigee/endpoints: the upstream of a route', () => {
  it.each<[string, string, Record<string, string>, string | undefined, RegExp | undefined]>([
    // [case, RouteRules, targets, upstream, what is left behind]
    ['a URL in the RouteRule', '<RouteRule name="r"><URL>http://orders.example.internal:8080</URL></RouteRule>', {}, 'http://orders.example.internal:8080', undefined],
    ['no RouteRule without a condition', '<RouteRule name="eu"><Condition>request.header.region = "eu"</Condition><TargetEndpoint>default</TargetEndpoint></RouteRule>', { default: TARGET }, undefined, /^the upstream: no RouteRule without a condition/],
    ['a RouteRule naming no TargetEndpoint of the bundle', '<RouteRule name="r"><TargetEndpoint>missing</TargetEndpoint></RouteRule>', { default: TARGET }, undefined, /^the upstream: no TargetEndpoint named missing/],
    ['a RouteRule with no target', '<RouteRule name="noroute"/>', {}, undefined, /^the upstream: a RouteRule with no target \(Apigee answers without a backend\)/],
    ['a target behind a LoadBalancer', '<RouteRule name="r"><TargetEndpoint>lb</TargetEndpoint></RouteRule>', { lb: '<TargetEndpoint name="lb"><HTTPTargetConnection><LoadBalancer><Server name="a"/></LoadBalancer></HTTPTargetConnection></TargetEndpoint>' }, undefined, /^TargetEndpoint lb: a LoadBalancer of TargetServers/],
    ['a target without a URL', '<RouteRule name="r"><TargetEndpoint>t</TargetEndpoint></RouteRule>', { t: '<TargetEndpoint name="t"/>' }, undefined, /^TargetEndpoint t: no HTTPTargetConnection URL/],
    ['a URL with a flow variable', '<RouteRule name="r"><URL>https://{target.host}/api</URL></RouteRule>', {}, undefined, /^the upstream https:\/\/\{target.host\}\/api: not a plain http\(s\) URL/],
    ['a URL with a query', '<RouteRule name="r"><URL>https://orders.example.internal/?key=1</URL></RouteRule>', {}, undefined, /not a plain http\(s\) URL without query/],
    ['a URL of another scheme', '<RouteRule name="r"><URL>ftp://orders.example.internal</URL></RouteRule>', {}, undefined, /not a plain http\(s\) URL/],
    ['not a URL', '<RouteRule name="r"><URL>orders.example.internal</URL></RouteRule>', {}, undefined, /not a plain http\(s\) URL/],
  ])('%s', (_case, routeRules, targets, upstream, left) => {
    const { attachments, items } = attach(proxy({ routeRules }), targets);
    expect(attachments.at(-1)?.upstream).toBe(upstream);
    if (left) expect(items.notTranslated).toContainEqual(expect.stringMatching(left));
    else expect(items.notTranslated).toEqual([]);
  });

  it('leaves a RouteRule with a condition behind: a route has one upstream', () => {
    const routeRules = '<RouteRule name="eu"><Condition>request.header.region = "eu"</Condition><URL>https://eu.example.internal</URL></RouteRule><RouteRule name="default"><TargetEndpoint>default</TargetEndpoint></RouteRule>';
    const { attachments, items } = attach(proxy({ routeRules }));
    expect(attachments[0]?.upstream).toBe('https://orders.example.internal');
    expect(items.notTranslated).toEqual([expect.stringMatching(/^RouteRule eu \(Condition request.header.region = "eu"\): a route has one upstream/)]);
  });

  it('states that the gateway forwards the whole request path after a URL\'s own path', () => {
    const { attachments, items } = attach(proxy({ routeRules: '<RouteRule name="r"><URL>https://orders.example.internal/api/</URL></RouteRule>' }));
    expect(attachments[0]?.upstream).toBe('https://orders.example.internal/api');
    expect(items.differences).toContainEqual(expect.stringMatching(/^the upstream https:\/\/orders.example.internal\/api\/: the gateway forwards the whole request path after \/api\//));
  });

  it('runs the target\'s unconditional flows, and leaves its conditional ones behind', () => {
    const target = `<TargetEndpoint name="default"><Flows>${flow('always', undefined, 'Target')}${flow('posts', 'request.verb = "POST"', 'Other')}</Flows><HTTPTargetConnection><URL>https://orders.example.internal</URL></HTTPTargetConnection></TargetEndpoint>`;
    const { attachments, items } = attach(proxy({}), { default: target });
    expect(attachments[0]?.names).toEqual(names('Pre', 'Target'));
    expect(items.notTranslated).toEqual([expect.stringMatching(/^target flow posts \(Condition request.verb = "POST"\): a target flow condition/)]);
  });
});

describe('migration/apigee/endpoints: proxy endpoints under /oauth2, the gateway\'s own endpoints', () => {
  it('attaches a flow\'s chain to the endpoint whose path its condition names', () => {
    const { attachments, report } = attach(proxy({ basePath: '/oauth2/v1', pre: [], flows: [flow('token', 'proxy.pathsuffix MatchesPath "/token"', 'Flow')], routeRules: '<RouteRule name="noroute"/>' }));
    expect(attachments).toEqual([{ kind: 'endpoint', path: '/oauth2/v1/token', names: names('Flow') }]);
    expect(report.complete).toBe(true);
  });

  it('attaches the PreFlow and PostFlow to every endpoint under the base path when no flow is chosen', () => {
    const { attachments } = attach(proxy({ basePath: '/oauth2/v1', pre: ['Pre'], post: ['Post'], routeRules: '<RouteRule name="noroute"/>' }));
    expect(attachments.map((attachment) => [attachment.path, attachment.names])).toEqual([
      ['/oauth2/v1/token', names('Pre', 'Post')],
      ['/oauth2/v1/revokeToken', names('Pre', 'Post')],
      ['/oauth2/v1/introspect', names('Pre', 'Post')],
      ['/oauth2/v1/keys', names('Pre', 'Post')],
      ['/oauth2/v1/openapi.json', names('Pre', 'Post')],
    ]);
  });

  it('chooses the first flow that matches, as Apigee does', () => {
    const flows = [flow('everything', under(''), 'Other'), flow('token', 'proxy.pathsuffix = "/token"', 'Flow')];
    const { attachments, items } = attach(proxy({ basePath: '/oauth2/v1', pre: [], flows, routeRules: '<RouteRule name="noroute"/>' }));
    expect(attachments.find((attachment) => attachment.path === '/oauth2/v1/token')?.names).toEqual(names('Other'));
    expect(items.notTranslated).toContainEqual(expect.stringMatching(/^flow token \(Condition proxy.pathsuffix = "\/token"\) under \/oauth2\/v1: it serves no endpoint the gateway has/));
  });

  it('leaves an endpoint\'s chain behind when a flow before it has a condition the import cannot read', () => {
    const flows = [flow('posts', 'request.verb = "POST"', 'Other'), flow('token', 'proxy.pathsuffix = "/token"', 'Flow')];
    const { attachments, items } = attach(proxy({ basePath: '/oauth2/v1', pre: [], flows, routeRules: '<RouteRule name="noroute"/>' }));
    expect(attachments.map((attachment) => attachment.path)).not.toContain('/oauth2/v1/token');
    expect(items.notTranslated).toContainEqual('the flows for /oauth2/v1/token: a flow before the one that serves this endpoint has a condition the import cannot read, so which flow ran is unknown');
  });

  it('leaves behind a flow that serves no endpoint the gateway has', () => {
    const { items } = attach(proxy({ basePath: '/oauth2/v1', pre: [], flows: [flow('authorize', 'proxy.pathsuffix = "/authorize"', 'Flow')], routeRules: '<RouteRule name="noroute"/>' }));
    expect(items.notTranslated).toEqual(['flow authorize (Condition proxy.pathsuffix = "/authorize") under /oauth2/v1: it serves no endpoint the gateway has (token, revokeToken, keys, discovery, openapi.json)']);
  });

  it.each([['/oauth2'], ['/.well-known'], ['/readyz']])('treats the base path %s as the gateway\'s own, never as a route', (basePath) => {
    expect(attach(proxy({ basePath })).attachments.every((attachment) => attachment.kind === 'endpoint')).toBe(true);
  });
});
