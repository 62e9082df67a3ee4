import type { PolicyXml } from '../policy-xml.js';
import { placeIn, reportUnknownElements } from '../policy-xml.js';
import { childElement, childText, textOf } from '../xml.js';
import { describedFrom, titleOf, type TranslateContext, type TranslatedPolicy } from './translation.js';

/** Apigee element -> our key. An element left out means no limit in Apigee: `unlimited` here. */
const LIMITS = [
  ['ContainerDepth', 'max_depth'],
  ['ObjectEntryCount', 'max_object_entries'],
  ['ArrayElementCount', 'max_array_elements'],
  ['ObjectEntryNameLength', 'max_name_length'],
  ['StringValueLength', 'max_string_length'],
] as const;

const KNOWN = ['DisplayName', 'Properties', 'Source', ...LIMITS.map(([element]) => element)];

/** JSONThreatProtection -> json-threat with require_valid_json (Apigee's parser refuses malformed JSON). */
export function translateJsonThreat(policy: PolicyXml, { report, baseName }: TranslateContext): TranslatedPolicy {
  const title = titleOf(policy);
  reportUnknownElements(policy, KNOWN, report);
  const source = childElement(policy.root, 'Source');
  const sourceText = textOf(source) ?? 'request';
  if (sourceText !== 'request' && sourceText !== 'message') {
    report.leftBehind(
      placeIn(policy.file, source ?? policy.root),
      `${title}: <Source>${sourceText}`,
      'the gateway inspects requests only, never an upstream\'s response',
      'protect the upstream\'s responses where they are produced, and remove this policy from the response flow',
    );
    return { entries: [] };
  }
  const entry: Record<string, unknown> = {
    name: baseName,
    kind: 'json-threat',
    description: describedFrom(policy, childText(policy.root, 'DisplayName')),
  };
  let withheld = false;
  for (const [element, key] of LIMITS) {
    const limit = childElement(policy.root, element);
    const text = textOf(limit);
    if (limit === undefined) {
      entry[key] = 'unlimited';
      report.carried(policy.place, `${title}: no <${element}>`, `${key}: unlimited`);
      continue;
    }
    if (!/^\d+$/.test(text ?? '') || Number(text) < 1) {
      // No stand-in (unlimited would switch the limit off): the policy is not written until the operator says what was meant.
      withheld = true;
      report.leftBehind(
        placeIn(policy.file, limit),
        `${title}: <${element}>${text}`,
        'not a positive whole number; Apigee\'s reference does not say what it means',
        `write the policy by hand with the limit you meant as ${key} (a number, or unlimited): it is not written, so that no limit is weaker than Apigee's`,
      );
      continue;
    }
    entry[key] = Number(text);
    report.carried(placeIn(policy.file, limit), `${title}: <${element}>${text}`, `${key}: ${text}`);
  }
  if (withheld) return { entries: [], withheld };
  entry.max_body_size = 'unlimited';
  entry.require_valid_json = true;
  report.carried(policy.place, title, `json-threat ${baseName} (max_body_size: unlimited, require_valid_json: true)`);
  report.differs(
    policy.place,
    title,
    'Apigee inspects Content-Type application/json only; the gateway also inspects application/*+json, and refuses a JSON body it cannot measure ' +
      '(Content-Encoding other than identity, a charset other than UTF-8). Apigee has no body size limit here: the gateway\'s limits.body_size ' +
      '(1mb by default; Apigee\'s own request limit is 10 MB) still applies to every route',
  );
  return { entries: [entry as { name: string; kind: string }] };
}
