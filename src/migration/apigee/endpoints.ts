import { POLICY_ENDPOINTS, RESERVED_PREFIXES } from '../../config/paths.js';
import { parsePathCondition, type PathCondition } from './conditions.js';
import { placeIn } from './policy-xml.js';
import type { Place } from './report.js';
import { linksOf, type BundleScope, type Link, type StepContext } from './steps.js';
import { childElement, childElements, childText, lineOf, parseXml, textOf, type Element } from './xml.js';

/** One chain the import attaches: a route of gateway.yaml, or one of the gateway's own endpoints. */
export interface Attachment {
  readonly kind: 'route' | 'endpoint';
  readonly path: string;
  readonly upstream?: string;
  readonly links: readonly Link[];
  readonly place: Place;
}

interface Flow {
  readonly name: string;
  readonly element: Element;
  readonly condition: string | undefined;
  readonly path: PathCondition | undefined;
}

const joinPath = (base: string, suffix: string): string => `${base === '/' ? '' : base}${suffix}` || '/';
const isReserved = (path: string): boolean => RESERVED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));

/** The Request steps of a flow part (PreFlow, a Flow, PostFlow), and a report line for each Response step. */
function requestLinks(part: Element | undefined, scope: BundleScope, file: string, context: StepContext): Link[] {
  if (!part) return [];
  const response = childElement(part, 'Response');
  for (const step of response ? childElements(response, 'Step') : []) {
    context.report.leftBehind(placeIn(file, step), `response step ${childText(step, 'Name') ?? ''}`, 'it runs on the upstream\'s response, and the gateway relays responses as they are', 'do what it did at the upstream, or drop it');
  }
  return linksOf(childElement(part, 'Request'), scope, file, context);
}

/** Every ProxyEndpoint of an API proxy bundle, as routes (or, under /oauth2, as the gateway's own endpoints). */
export function attachmentsOfBundle(scope: BundleScope, context: StepContext): Attachment[] {
  const { bundle } = scope;
  const targets = new Map<string, { root: Element; file: string }>();
  for (const [path, text] of bundle.files) {
    if (!/^targets\/[^/]+\.xml$/.test(path)) continue;
    const file = bundle.displayPath(path);
    const root = tryParse(text, file, context);
    if (root) targets.set(root.getAttribute('name') || path.slice(8, -4), { root, file });
  }
  const attachments: Attachment[] = [];
  for (const [path, text] of bundle.files) {
    if (!/^proxies\/[^/]+\.xml$/.test(path)) continue;
    const file = bundle.displayPath(path);
    const root = tryParse(text, file, context);
    if (root) attachments.push(...proxyEndpoint(root, file, scope, targets, context));
  }
  return attachments;
}

function tryParse(text: string, file: string, context: StepContext): Element | undefined {
  try {
    return parseXml(text, file);
  } catch (error) {
    const { line, message } = error as { line?: number; message: string };
    context.report.leftBehind({ file, line }, 'the file', message, 'fix the XML and import again');
    return undefined;
  }
}

function proxyEndpoint(root: Element, file: string, scope: BundleScope, targets: ReadonlyMap<string, { root: Element; file: string }>, context: StepContext): Attachment[] {
  const { report } = context;
  const place = placeIn(file, root);
  const basePath = (childText(childElement(root, 'HTTPProxyConnection') ?? root, 'BasePath') ?? '/').replace(/\/+$/, '') || '/';
  for (const faults of [...childElements(root, 'FaultRules'), ...childElements(root, 'DefaultFaultRule')]) {
    if (childElements(faults).length > 0) report.differs(placeIn(file, faults), `<${faults.localName}>`, 'refusals are rendered by the gateway\'s error catalogue (the statuses and messages of the spec\'s error table), not by fault rules');
  }
  const postClient = childElement(root, 'PostClientFlow');
  if (postClient) requestLinks(postClient, scope, file, context);
  const pre = requestLinks(childElement(root, 'PreFlow'), scope, file, context);
  const flows: Flow[] = childElements(childElement(root, 'Flows') ?? root, 'Flow').map((element) => {
    const condition = childText(element, 'Condition') || undefined;
    return { name: element.getAttribute('name') ?? '', element, condition, path: condition === undefined ? undefined : parsePathCondition(condition) };
  });
  const unreached = isReserved(basePath) ? new Map<Flow, string>() : unreachedFlows(flows, basePath);
  const flowLinks = new Map(flows.map((flow) => [flow, unreached.has(flow) ? neverRun(flow, file, context) : requestLinks(flow.element, scope, file, context)]));
  const post = requestLinks(childElement(root, 'PostFlow'), scope, file, context);
  if (isReserved(basePath)) return ownEndpoints(basePath, place, pre, post, flows, flowLinks, file, context);

  const target = upstreamOf(root, file, targets, scope, context);
  const attachments: Attachment[] = [];
  let catchAll: Flow | undefined;
  for (const flow of flows) {
    const flowPlace = placeIn(file, flow.element);
    const never = unreached.get(flow);
    if (never) {
      report.carried(flowPlace, `flow ${flow.name}`, `nothing: never reached in Apigee (${never})`);
      continue;
    }
    if (flow.condition === undefined) {
      catchAll = flow;
      continue;
    }
    if (!flow.path || flow.path.kind === 'exactly') {
      report.leftBehind(
        flowPlace,
        `flow ${flow.name} (Condition ${flow.condition})`,
        flow.path ? 'one exact path: a route of the gateway is a prefix and would also take every path under it' : 'a condition a route cannot express (routes are path prefixes: no verb, header or pattern conditions)',
        'attach its policies by hand to a route whose prefix holds exactly the requests the condition selected (or to the base route, if they should run on every request)',
      );
      continue;
    }
    const path = joinPath(basePath, flow.path.suffix);
    if (!flow.path.withBase) {
      report.differs(flowPlace, `flow ${flow.name}`, `the route ${path} also serves ${path} itself with this flow's policies; Apigee's "/**" needed a segment after it`);
    }
    attachments.push({ kind: 'route', path, upstream: target.upstream, links: [...pre, ...(flowLinks.get(flow) ?? []), ...post, ...target.links], place: flowPlace });
    report.carried(flowPlace, `flow ${flow.name} (Condition ${flow.condition})`, `route ${path}`);
  }
  attachments.push({ kind: 'route', path: basePath, upstream: target.upstream, links: [...pre, ...(catchAll ? (flowLinks.get(catchAll) ?? []) : []), ...post, ...target.links], place });
  report.carried(place, `ProxyEndpoint ${root.getAttribute('name') ?? ''} (BasePath ${basePath})`, `route ${basePath}`);
  return attachments;
}

/**
 * The flows Apigee never reaches, with why: those after a flow without a
 * condition, and those whose paths an earlier flow already takes. Their
 * policies are not translated (nor written): nothing ran them.
 */
function unreachedFlows(flows: readonly Flow[], basePath: string): Map<Flow, string> {
  const unreached = new Map<Flow, string>();
  const taken: string[] = [];
  let catchAll: Flow | undefined;
  for (const flow of flows) {
    if (catchAll) {
      unreached.set(flow, `flow ${catchAll.name} before it has no condition`);
      continue;
    }
    if (flow.condition === undefined) catchAll = flow;
    if (flow.path?.kind !== 'under') continue;
    const suffix = flow.path.suffix;
    const covering = taken.find((earlier) => suffix === earlier || suffix.startsWith(`${earlier}/`));
    if (covering !== undefined) unreached.set(flow, `an earlier flow takes every path under ${joinPath(basePath, covering)}`);
    else taken.push(suffix);
  }
  return unreached;
}

/** The steps of a flow Apigee never reaches: each translated into nothing, as Apigee ran none of them. */
function neverRun(flow: Flow, file: string, { report }: StepContext): Link[] {
  for (const part of ['Request', 'Response']) {
    const steps = childElement(flow.element, part);
    for (const step of steps ? childElements(steps, 'Step') : []) {
      report.carried(placeIn(file, step), `step ${childText(step, 'Name') ?? ''}`, `nothing (flow ${flow.name} is never reached)`);
    }
  }
  return [];
}

/** Under /oauth2 the gateway serves its own endpoints; a bundle's chains there attach to `policies.endpoints`. */
function ownEndpoints(basePath: string, place: Place, pre: Link[], post: Link[], flows: readonly Flow[], flowLinks: ReadonlyMap<Flow, Link[]>, file: string, { report }: StepContext): Attachment[] {
  const attachments: Attachment[] = [];
  const used = new Set<Flow>();
  for (const endpoint of POLICY_ENDPOINTS.filter((path) => path === basePath || path.startsWith(`${basePath}/`))) {
    const suffix = endpoint.slice(basePath.length);
    let chosen: Flow | undefined;
    let unsure = false;
    for (const flow of flows) {
      const matches = flow.condition === undefined || (flow.path?.kind === 'exactly' && flow.path.suffix === suffix) || (flow.path?.kind === 'under' && (suffix.startsWith(`${flow.path.suffix}/`) || (flow.path.withBase && suffix === flow.path.suffix)));
      if (!flow.path && flow.condition !== undefined) unsure = true;
      if (matches) {
        chosen = flow;
        break;
      }
    }
    if (unsure) {
      report.leftBehind(place, `the flows for ${endpoint}`, 'a flow before the one that serves this endpoint has a condition the import cannot read, so which flow ran is unknown', `attach the policies of the right flow to policies.endpoints["${endpoint}"] by hand`);
      continue;
    }
    if (chosen) used.add(chosen);
    const links = [...pre, ...(chosen ? (flowLinks.get(chosen) ?? []) : []), ...post];
    if (!chosen && flows.length > 0 && !links.some((link) => link.names.length > 0)) continue;
    attachments.push({ kind: 'endpoint', path: endpoint, links, place: chosen ? placeIn(file, chosen.element) : place });
    report.carried(chosen ? placeIn(file, chosen.element) : place, `${chosen ? `flow ${chosen.name}` : 'the PreFlow and PostFlow'} under ${basePath}`, `policies.endpoints["${endpoint}"] (the gateway serves the endpoint itself)`);
  }
  for (const flow of flows.filter((candidate) => !used.has(candidate))) {
    report.leftBehind(placeIn(file, flow.element), `flow ${flow.name}${flow.condition ? ` (Condition ${flow.condition})` : ''} under ${basePath}`, 'it serves no endpoint the gateway has (token, revokeToken, keys, discovery, openapi.json)', 'serve that operation elsewhere, or drop it');
  }
  return attachments;
}

/** The upstream of a proxy endpoint: its RouteRule without a condition, and that target's URL and request steps. */
function upstreamOf(root: Element, file: string, targets: ReadonlyMap<string, { root: Element; file: string }>, scope: BundleScope, context: StepContext): { upstream?: string; links: Link[] } {
  const { report } = context;
  const rules = childElements(root, 'RouteRule');
  for (const rule of rules.filter((candidate) => childText(candidate, 'Condition'))) {
    report.leftBehind(placeIn(file, rule), `RouteRule ${rule.getAttribute('name') ?? ''} (Condition ${childText(rule, 'Condition')})`, 'a route has one upstream; the gateway does not choose one by condition', 'give the requests it selected a route of their own with that upstream, in gateway.yaml');
  }
  const rule = rules.find((candidate) => !childText(candidate, 'Condition'));
  const missing = (why: string): { links: Link[] } => {
    report.leftBehind(rule ? placeIn(file, rule) : placeIn(file, root), 'the upstream', why, 'write the upstream URL into the printed route before adding it to gateway.yaml');
    return { links: [] };
  };
  if (!rule) return missing('no RouteRule without a condition');
  const direct = childText(rule, 'URL');
  if (direct) return { upstream: checkedUrl(direct, placeIn(file, rule), context), links: [] };
  const name = childText(rule, 'TargetEndpoint');
  const target = name ? targets.get(name) : undefined;
  if (!target) return missing(name ? `no TargetEndpoint named ${name}` : 'a RouteRule with no target (Apigee answers without a backend)');
  const connection = childElement(target.root, 'HTTPTargetConnection');
  const urlElement = connection ? childElement(connection, 'URL') : undefined;
  const links = [...requestLinks(childElement(target.root, 'PreFlow'), scope, target.file, context)];
  for (const flow of childElements(childElement(target.root, 'Flows') ?? target.root, 'Flow')) {
    if (childText(flow, 'Condition')) {
      report.leftBehind(placeIn(target.file, flow), `target flow ${flow.getAttribute('name') ?? ''} (Condition ${childText(flow, 'Condition')})`, 'a target flow condition; the gateway runs a route\'s policies on every request', 'attach its policies by hand where they apply');
      continue;
    }
    links.push(...requestLinks(flow, scope, target.file, context));
  }
  links.push(...requestLinks(childElement(target.root, 'PostFlow'), scope, target.file, context));
  if (!urlElement) {
    const balancer = connection ? childElement(connection, 'LoadBalancer') : undefined;
    report.leftBehind(placeIn(target.file, balancer ?? target.root), `TargetEndpoint ${name}`, balancer ? 'a LoadBalancer of TargetServers, defined per environment outside the bundle' : 'no HTTPTargetConnection URL', 'write the upstream URL (one balancer address) into the printed route');
    return { links };
  }
  return { upstream: checkedUrl(textOf(urlElement) ?? '', { file: target.file, line: lineOf(urlElement) }, context), links };
}

function checkedUrl(text: string, place: Place, { report }: StepContext): string | undefined {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || text.includes('{')) {
    report.leftBehind(place, `the upstream ${text}`, 'not a plain http(s) URL without query (flow variables are not resolved)', 'write the URL it resolves to in production into the printed route');
    return undefined;
  }
  if (url.pathname !== '/' && url.pathname !== '') {
    report.differs(place, `the upstream ${text}`, `the gateway forwards the whole request path after ${url.pathname} (Apigee appended only the path after the proxy's base path): serve the full path at the upstream, or drop the base path from the URL`);
  }
  return text.replace(/\/+$/, '');
}
