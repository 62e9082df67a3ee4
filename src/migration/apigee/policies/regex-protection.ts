import { parseSelector } from '../../../policies/regex-protection/selectors.js';
import { translateJavaRegex } from '../java-regex.js';
import { ourName } from '../names.js';
import type { PolicyXml } from '../policy-xml.js';
import { placeIn, reportUnknownElements } from '../policy-xml.js';
import type { Place } from '../report.js';
import { booleanOf, childElement, childElements, childText, textOf, type Element } from '../xml.js';
import { describedFrom, titleOf, type PolicyEntry, type TranslateContext, type TranslatedPolicy } from './translation.js';

const KNOWN = ['DisplayName', 'Properties', 'Source', 'IgnoreUnresolvedVariables', 'URIPath', 'QueryParam', 'Header', 'FormParam', 'Variable', 'XMLPayload', 'JSONPayload'];

/** Where one element's patterns apply, as our apply_to says it. */
interface Target {
  readonly slug: string;
  /** What the element selects: elements of one key test the same thing, and become one entry. */
  readonly key: string;
  readonly applyTo: Record<string, unknown>;
  readonly element: Element;
  /** Named inputs Apigee must resolve (header, parameter, variable): absent ones are an error there. */
  readonly named: boolean;
}

const NOTHING = { path: false, query: false, json_body: 'none' };

/**
 * RegularExpressionProtection -> one regex-protection per element, because
 * Apigee scopes each <Pattern> to its element (a URIPath pattern never runs
 * on a header) while our patterns run on every part a policy tests. The
 * entries run one after another where the Apigee policy ran. Patterns are
 * Java regular expressions, matched anywhere and case-sensitively: they are
 * translated to RE2 (case_sensitive: true), or refused with the reason.
 */
export function translateRegexProtection(policy: PolicyXml, context: TranslateContext): TranslatedPolicy {
  const { report } = context;
  const title = titleOf(policy);
  reportUnknownElements(policy, KNOWN, report);
  const source = textOf(childElement(policy.root, 'Source')) ?? 'request';
  if (source !== 'request' && source !== 'message') {
    report.leftBehind(policy.place, `${title}: <Source>${source}`, 'the gateway tests requests only, never an upstream\'s response', 'remove this policy from the response flow; protect what the upstream produces where it is produced');
    return { entries: [] };
  }
  const targets: Target[] = [];
  const place = (element: Element): Place => placeIn(policy.file, element);
  for (const element of childElements(policy.root)) {
    const name = element.getAttribute('name') ?? '';
    switch (element.localName) {
      case 'URIPath':
        targets.push(pathTarget(element));
        break;
      case 'QueryParam':
        targets.push(queryTarget(name, element));
        break;
      case 'Header':
        targets.push(headerTarget(name, element));
        break;
      case 'Variable': {
        const target = variableTarget(name, element);
        if (target) targets.push(target);
        else report.leftBehind(place(element), `${title}: <Variable name="${name}">`, 'the gateway tests the path, query parameters, headers and JSON bodies; this flow variable is none of them', 'test the part of the request the variable was extracted from (URIPath, QueryParam, Header or JSONPayload), or drop it');
        break;
      }
      case 'FormParam':
      case 'XMLPayload':
        report.leftBehind(place(element), `${title}: <${element.localName}${name ? ` name="${name}"` : ''}>`, `the gateway does not inspect ${element.localName === 'XMLPayload' ? 'XML' : 'form'} bodies`, 'refuse that content type at the upstream, or keep this API on Apigee until it is JSON');
        break;
      case 'JSONPayload':
        targets.push(...jsonTargets(policy, element, context, targets.filter((target) => target.key.startsWith('json:')).map((target) => target.key)));
        break;
      default:
        break;
    }
  }
  const ignoreUnresolved = booleanOf(childText(policy.root, 'IgnoreUnresolvedVariables')) ?? false;
  const entries: PolicyEntry[] = [];
  const groups = groupedBySelection(targets);
  const several = groups.length > 1;
  for (const group of groups) {
    const patterns = translatePatterns(policy, group, context);
    const [first] = group;
    if (!first) continue;
    if (patterns.length === 0) {
      // Refused patterns are reported one by one; an element with none at all still gets its line, as every element read does.
      for (const target of group) if (childElements(target.element, 'Pattern').length === 0) report.carried(place(target.element), elementTitle(title, target.element), 'nothing (no <Pattern>: Apigee tests nothing there either)');
      continue;
    }
    const name = several ? ourName(context.baseName, first.slug) : context.baseName;
    entries.push({
      name,
      kind: 'regex-protection',
      description: describedFrom(policy, childText(policy.root, 'DisplayName')),
      builtin: [],
      patterns,
      apply_to: first.applyTo,
    });
    const count = `${patterns.length} pattern${patterns.length === 1 ? '' : 's'}`;
    for (const target of group) {
      const merged = group.length > 1 ? `, with the ${group.length} elements that test the same` : '';
      report.carried(place(target.element), elementTitle(title, target.element), `regex-protection ${name} (${count}${merged}, case-sensitive)`);
    }
    if (first.named && !ignoreUnresolved) {
      report.differs(place(first.element), title, 'with IgnoreUnresolvedVariables false, Apigee fails (500) a request that lacks this header, parameter or variable; the gateway lets it pass this policy');
    }
    if (first.key.startsWith('header:')) {
      report.differs(place(first.element), title, 'each value of the header is tested whole, as sent (Apigee\'s request.header.NAME is its first comma-separated value)');
    }
    if (first.key === 'path') {
      report.differs(place(first.element), title, 'the path is tested percent-decoded once, as the gateway routes it (a pattern for %27 must be written for \')');
    }
  }
  if (targets.length === 0) report.leftBehind(policy.place, title, 'nothing left to test', 'see the items above');
  return { entries };
}

const pathTarget = (element: Element): Target => ({ slug: 'uri-path', key: 'path', applyTo: { ...NOTHING, path: true }, element, named: false });
const queryTarget = (name: string, element: Element): Target => ({ slug: `query-${name}`, key: `query:${name}`, applyTo: { ...NOTHING, query_params: [name] }, element, named: true });
// Header names are case-insensitive (RFC 9110 5.1): X-A and x-a select one header.
const headerTarget = (name: string, element: Element): Target => ({ slug: `header-${name}`, key: `header:${name.toLowerCase()}`, applyTo: { ...NOTHING, headers: [name] }, element, named: true });

function variableTarget(name: string, element: Element): Target | undefined {
  const header = /^request\.header\.([!#$%&'*+.^_`|~0-9A-Za-z-]+)$/.exec(name)?.[1];
  if (header) return headerTarget(header, element);
  const query = /^request\.queryparam\.(.+)$/.exec(name)?.[1];
  if (query) return queryTarget(query, element);
  if (name === 'request.path') return pathTarget(element);
  return undefined;
}

/**
 * Elements that select the same thing (two <QueryParam name="q">, <URIPath>
 * and request.path, a Header and its request.header variable) test it with
 * all their patterns in Apigee: here one entry holds them all, in order of
 * the first such element (and names stay unique, as the policies folder needs).
 */
function groupedBySelection(targets: readonly Target[]): Target[][] {
  const groups = new Map<string, Target[]>();
  for (const target of targets) groups.set(target.key, [...(groups.get(target.key) ?? []), target]);
  return [...groups.values()];
}

const elementTitle = (title: string, element: Element): string => `${title}: <${element.localName}${element.getAttribute('name') ? ` name="${element.getAttribute('name')}"` : ''}>`;

/** Each <JSONPath> is its own target: its patterns apply to what its expression selects. */
function jsonTargets(policy: PolicyXml, payload: Element, { report }: TranslateContext, earlier: readonly string[]): Target[] {
  const title = titleOf(policy);
  if (booleanOf(payload.getAttribute('escapeSlashCharacter') ?? undefined)) {
    report.leftBehind(placeIn(policy.file, payload), `${title}: <JSONPayload escapeSlashCharacter="true">`, 'Apigee then tests the selected text with every / written as \\/; the gateway tests the text as it is', 'rewrite the patterns for the unescaped text and remove the attribute');
    return [];
  }
  const targets: Target[] = [];
  const keys = [...new Set(earlier)];
  for (const path of childElements(payload, 'JSONPath')) {
    const expression = childText(path, 'Expression') ?? '';
    const parsed = parseSelector(expression);
    if ('error' in parsed) {
      report.leftBehind(placeIn(policy.file, path), `${title}: <JSONPath> ${expression}`, `the gateway's selectors are $, .key, ['key'], [n], [*] and .*: ${parsed.error}`, 'list the paths the expression reaches with those selectors, or test the whole body (json_body: all)');
      continue;
    }
    if (parsed.selector.segments.some((segment) => segment.kind === 'any')) {
      report.differs(placeIn(policy.file, path), title, `${expression} selects several nodes: each is tested on its own (Apigee tests the list of results)`);
    }
    report.differs(placeIn(policy.file, path), title, 'only JSON bodies (application/json, application/*+json) are tested; a body that is not valid JSON is tested whole as text');
    // Numbered across the policy's JSONPayloads, an expression met again taking its first number.
    const key = `json:${expression}`;
    if (!keys.includes(key)) keys.push(key);
    targets.push({ slug: `json-${keys.indexOf(key) + 1}`, key, applyTo: { ...NOTHING, json_body: [expression], json_text: true }, element: path, named: false });
  }
  return targets;
}

/** The patterns of a group of elements, numbered in order across them (pattern names are unique in an entry). */
function translatePatterns(policy: PolicyXml, group: readonly Target[], { report }: TranslateContext): Array<{ name: string; pattern: string; case_sensitive: true }> {
  const patterns: Array<{ name: string; pattern: string; case_sensitive: true }> = [];
  const [first] = group;
  let index = 0;
  for (const element of group.flatMap((target) => childElements(target.element, 'Pattern'))) {
    index++;
    const source = textOf(element) ?? '';
    const where = placeIn(policy.file, element);
    const translation = translateJavaRegex(source);
    if ('refused' in translation) {
      report.leftBehind(where, `${titleOf(policy)}: <Pattern>${source}`, `not translated to RE2: ${translation.refused}`, 'rewrite the pattern without it (RE2 syntax, linear time) and add it to the policy file; whatever of this policy could be translated is written and in force');
      continue;
    }
    if (first?.key === 'path' && /%[0-9A-Fa-f]{2}/.test(source)) {
      report.leftBehind(where, `${titleOf(policy)}: <Pattern>${source}`, 'the pattern looks for percent-encoded text, and the gateway tests the decoded path', 'rewrite it for the decoded characters in the policy file');
      continue;
    }
    for (const note of translation.notes) report.differs(where, titleOf(policy), note);
    patterns.push({ name: ourName(first?.slug ?? 'pattern', String(index)), pattern: translation.re2, case_sensitive: true });
  }
  return patterns;
}
