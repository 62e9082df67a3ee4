import type { Bundle, BundleKind } from '../../src/migration/apigee/bundle.js';
import type { PolicyEntry, TranslatedPolicy, Translator } from '../../src/migration/apigee/policies/translation.js';
import { POLICY_KINDS } from '../../src/policies/kinds.js';
import { readPolicies, type PolicyXml } from '../../src/migration/apigee/policy-xml.js';
import { ImportReport } from '../../src/migration/apigee/report.js';
import { translatePolicy } from '../../src/migration/apigee/translate-policy.js';

/** Apigee bundles held in memory, for the importer's unit tests (the reader has its own, on real files). */

/** A bundle of these files (`policies/SA.xml`: text), as readBundle would return it. */
export function bundleOf(files: Record<string, string>, options: { kind?: BundleKind; name?: string } = {}): Bundle {
  const kind = options.kind ?? 'apiproxy';
  const source = `bundles/${options.name ?? 'orders'}`;
  return { kind, source, name: options.name ?? 'orders', files: new Map(Object.entries(files)), displayPath: (file) => `${source}/${kind}/${file}` };
}

/** One policy file read as the importer reads it; its display path is `bundles/orders/apiproxy/policies/<name>.xml`. */
export function policyOf(xml: string, name = 'P'): PolicyXml {
  const report = new ImportReport();
  const policy = readPolicies(bundleOf({ [`policies/${name}.xml`]: xml }), report).values().next().value;
  if (!policy) throw new Error(`not a readable policy: ${report.render()}`);
  return policy;
}

/** One translator on one policy file, and the report it wrote. */
export function translateWith(translator: Translator, xml: string, baseName = 'orders.P'): { result: TranslatedPolicy; report: ImportReport } {
  const report = new ImportReport();
  return { result: translator(policyOf(xml), { report, baseName }), report };
}

/** The schema's complaint about an entry, or undefined when it loads as its kind (as check and serve would load it). */
export function loadError(entry: PolicyEntry): string | undefined {
  const parsed = POLICY_KINDS.find((kind) => kind.kind === entry.kind)?.schema.safeParse(entry);
  if (!parsed) return `unknown kind ${entry.kind}`;
  return parsed.success ? undefined : parsed.error.message;
}

/** A policy translated (through translatePolicy, which validates every entry with its kind's schema), and the report. */
export function translated(xml: string, baseName = 'orders.P'): { result: TranslatedPolicy; report: ImportReport } {
  const report = new ImportReport();
  return { result: translatePolicy(policyOf(xml), { report, baseName }), report };
}

/** The report's items, one line each, without places: what a test asserts on. */
export function itemsOf(report: ImportReport): { translated: string[]; differences: string[]; notTranslated: string[] } {
  return {
    translated: report.translated.map((item) => `${item.what} -> ${item.into}`),
    differences: report.differences.map((item) => `${item.what}: ${item.difference}`),
    notTranslated: report.notTranslated.map((item) => `${item.what}: ${item.why}`),
  };
}
