import { stringify } from 'yaml';
import { BundleError, readBundle, type Bundle } from './bundle.js';
import { attachmentsOfBundle, type Attachment } from './endpoints.js';
import { ourName } from './names.js';
import type { PolicyEntry } from './policies/translation.js';
import { parseOrReport, readPolicies } from './policy-xml.js';
import { ImportReport } from './report.js';
import type { BundleScope, Link, SharedFlow, StepContext } from './steps.js';
import { childElement, lineOf } from './xml.js';

/** The gateway.yaml keys an import prints: routes, endpoint chains, token lifetimes. */
export interface GatewayAttachments {
  tokens?: { access_ttl?: string; refresh_ttl?: string };
  policies?: { endpoints: Record<string, string[]> };
  routes: Array<{ path: string; upstream?: string; policies: string[] }>;
}

export interface ApigeeImport {
  /** Policy files to write, by file name (`apigee-<bundle>.yaml`), in our exact format. */
  readonly files: ReadonlyMap<string, string>;
  readonly attachments: GatewayAttachments;
  readonly report: ImportReport;
}

/**
 * Imports API proxy bundles (and the shared flow bundles they call) into
 * policy files and gateway.yaml attachments. Nothing is written here: the
 * command decides where, and whether it may.
 */
export async function importApigee(sources: readonly string[]): Promise<ApigeeImport> {
  const report = new ImportReport();
  const bundles: Bundle[] = [];
  for (const source of sources) bundles.push(await readBundle(source));
  refuseSameNames(bundles);
  for (const bundle of bundles.filter(holdsNothing)) {
    report.leftBehind(
      { file: bundle.source, line: undefined },
      `bundle ${bundle.name}`,
      `nothing to import: no proxy endpoint (${bundle.kind}/proxies/*.xml), shared flow or policy in it`,
      'check that this is the bundle you meant: an export from Apigee holds its proxies/ (or sharedflows/) and policies/ folders',
    );
  }
  const scopes = bundles.map((bundle): BundleScope => ({ bundle, policies: readPolicies(bundle, report), translated: new Map(), stepped: new Set() }));
  const context: StepContext = { report, sharedFlows: sharedFlowsOf(scopes, report), taken: new Map() };

  const attachments: Attachment[] = [];
  for (const scope of scopes.filter(({ bundle }) => bundle.kind === 'apiproxy')) attachments.push(...attachmentsOfBundle(scope, context));
  if (attachments.length > 0) {
    report.differs(
      { file: sources.join(', '), line: undefined },
      'every refusal',
      'rendered by the gateway\'s error catalogue with the spec\'s statuses: 401 REGEX_THREAT, JSON_THREAT, SPIKE_ARREST (with Retry-After), 403 IP_RANGE_FORBIDDEN; ' +
        'Apigee\'s own fault codes and statuses (400, 403, 429, 500) and FaultRules do not carry over',
    );
  }
  const gateway = attachmentsYaml(attachments, report);
  for (const scope of scopes) {
    for (const [name, policy] of scope.policies) {
      // A policy a step names is accounted for by that step's line (translated, or left behind with what to do).
      if (!scope.stepped?.has(name) && policy.type !== 'FlowCallout') report.carried(policy.place, `${policy.type} ${name}`, 'nothing (no flow of the bundles runs it)');
    }
  }
  return { files: policyFiles(scopes), attachments: gateway, report };
}

/** A bundle with neither endpoints, flows nor policies: an import of it would write nothing and claim success. */
const holdsNothing = (bundle: Bundle): boolean => ![...bundle.files.keys()].some((path) => /^(proxies|sharedflows|policies)\/[^/]+\.xml$/.test(path));

/**
 * A bundle's name qualifies its policies' names and names its file, so two
 * bundles of one name (two revisions of a proxy, say) would write one file
 * and one set of names: the second's policies silently replacing the
 * first's. Letter case aside too, since the files may land on a file system
 * that ignores it.
 */
function refuseSameNames(bundles: readonly Bundle[]): void {
  const seen = new Map<string, Bundle>();
  for (const bundle of bundles) {
    const earlier = seen.get(bundle.name.toLowerCase());
    if (earlier) throw new BundleError(`${earlier.source} and ${bundle.source} are both the bundle "${bundle.name}": their policies and files would have the same names; import one of them`);
    seen.set(bundle.name.toLowerCase(), bundle);
  }
}

function sharedFlowsOf(scopes: readonly BundleScope[], report: ImportReport): Map<string, SharedFlow> {
  const flows = new Map<string, SharedFlow>();
  for (const scope of scopes.filter(({ bundle }) => bundle.kind === 'sharedflowbundle')) {
    const path = [...scope.bundle.files.keys()].find((candidate) => /^sharedflows\/[^/]+\.xml$/.test(candidate));
    const file = path ? scope.bundle.displayPath(path) : scope.bundle.source;
    const root = path ? parseOrReport(scope.bundle.files.get(path) ?? '', file, report) : undefined;
    flows.set(scope.bundle.name, { scope, steps: root, file });
  }
  return flows;
}

const namesOf = (links: readonly Link[]): string[] => [...new Set(links.flatMap((link) => link.names))];

function attachmentsYaml(attachments: readonly Attachment[], report: ImportReport): GatewayAttachments {
  const result: GatewayAttachments = { routes: [] };
  const seen = new Map<string, Attachment>();
  for (const attachment of attachments) {
    const key = `${attachment.kind} ${attachment.path}`;
    if (seen.has(key)) {
      report.leftBehind(attachment.place, `${attachment.kind} ${attachment.path}`, `another proxy endpoint imported here has the same path (${seen.get(key)?.place.file})`, 'keep one, or give one of them another base path');
      continue;
    }
    seen.set(key, attachment);
    tokenSettings(attachment.links, result, report);
    const policies = namesOf(attachment.links);
    if (attachment.kind === 'endpoint') {
      if (policies.length === 0) continue;
      result.policies ??= { endpoints: {} };
      result.policies.endpoints[attachment.path] = policies;
      continue;
    }
    const verify = attachment.links.findIndex((link) => link.verifiesToken);
    if (verify < 0) {
      report.leftBehind(attachment.place, `route ${attachment.path}`, 'no VerifyAccessToken runs on it: the API is public on Apigee, and every route of the gateway requires a Bearer access token', 'keep a public API off the gateway (or on Apigee); the printed route would refuse every call without a token');
    } else {
      const after = namesOf(attachment.links.slice(verify + 1));
      if (after.length > 0) {
        report.differs(attachment.place, `route ${attachment.path}`, `${after.join(', ')} ran after VerifyAccessToken in Apigee and run before the token is verified here: a request that fails both gets that policy's refusal rather than ACCESS_TOKEN_INVALID (the same 401 for all but ip-range, which answers 403)`);
      }
    }
    result.routes.push({ path: attachment.path, ...(attachment.upstream ? { upstream: attachment.upstream } : {}), policies });
  }
  return result;
}

/**
 * The gateway has one access and one refresh lifetime. A token policy that
 * disagrees with one already set is left behind as a whole (none of its
 * lifetimes applies), and its translated lines are taken back.
 */
function tokenSettings(links: readonly Link[], result: GatewayAttachments, report: ImportReport): void {
  for (const link of links) {
    const settings = Object.entries(link.tokens ?? {}) as Array<['access_ttl' | 'refresh_ttl', string]>;
    const clashes = settings.filter(([key, value]) => result.tokens?.[key] !== undefined && result.tokens[key] !== value);
    for (const [key, value] of clashes) {
      report.leftBehind(link.place, `step ${link.step}: tokens.${key} ${value}`, `another token policy sets ${result.tokens?.[key]}; the gateway has one lifetime`, `choose one value for tokens.${key}`);
    }
    if (clashes.length > 0) {
      if (link.reported) report.withdraw(link.reported);
      continue;
    }
    for (const [key, value] of settings) result.tokens = { ...result.tokens, [key]: value };
  }
}

/** One policy file per bundle, in the exact format of the policies folder. */
function policyFiles(scopes: readonly BundleScope[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const scope of scopes) {
    const entries: PolicyEntry[] = [...scope.translated.values()].flatMap((translated) => translated.entries);
    if (entries.length === 0) continue;
    const header = `# Imported from the Apigee ${scope.bundle.kind === 'apiproxy' ? 'API proxy' : 'shared flow'} bundle ${scope.bundle.name} (${scope.bundle.source})\n# by \`token-gateway import apigee\`; see docs/migrating-from-apigee.md. Edit freely: this file is yours now.\n`;
    files.set(`apigee-${ourName(scope.bundle.name)}.yaml`, header + stringify({ policies: entries }, { lineWidth: 0 }));
  }
  return files;
}

/** The printed gateway.yaml fragment. */
export function renderAttachments(attachments: GatewayAttachments, outDir: string): string {
  const document: Record<string, unknown> = {};
  if (attachments.tokens) document.tokens = attachments.tokens;
  document.policies = { folder: outDir, ...(attachments.policies ? { endpoints: attachments.policies.endpoints } : {}) };
  document.routes = attachments.routes;
  return `# gateway.yaml keys from \`token-gateway import apigee\`: merge them into your gateway.yaml.\n${stringify(document, { lineWidth: 0 })}`;
}

