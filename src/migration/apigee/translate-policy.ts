import { POLICY_KINDS } from '../../policies/kinds.js';
import { translateAccessControl } from './policies/access-control.js';
import { translateJsonThreat } from './policies/json-threat.js';
import { translateOAuthV2 } from './policies/oauth-v2.js';
import { translateRegexProtection } from './policies/regex-protection.js';
import { translateSpikeArrest } from './policies/spike-arrest.js';
import { titleOf, type PolicyEntry, type TranslatedPolicy, type TranslateContext, type Translator } from './policies/translation.js';
import type { PolicyXml } from './policy-xml.js';
import { ImportReport } from './report.js';

const TRANSLATORS: Readonly<Record<string, Translator>> = {
  SpikeArrest: translateSpikeArrest,
  JSONThreatProtection: translateJsonThreat,
  RegularExpressionProtection: translateRegexProtection,
  AccessControl: translateAccessControl,
  OAuthV2: translateOAuthV2,
};

/** What to do about the policy types this import leaves behind, by type. */
const NO_COUNTERPART: Readonly<Record<string, string>> = {
  Javascript: 'JavaScript runs nowhere in the gateway: if it checked the time of day, write a time-of-day policy (policies/time-of-day.yaml shows one); otherwise move the logic to the upstream',
  JavaCallout: 'Java code runs nowhere in the gateway: move the logic to the upstream',
  PythonScript: 'scripts run nowhere in the gateway: move the logic to the upstream',
  Quota: 'the gateway has no quota (counts over hours, days or months per app): keep quotas at the upstream or a billing system; a spike-arrest limits rates, not totals',
  KeyValueMapOperations: 'the gateway has no key-value maps: write the values the KVM held into the policy files or gateway.yaml',
  VerifyAPIKey: 'the gateway authenticates calls by Bearer access token only: move clients to the token service (POST /oauth2/v1/token)',
  XMLThreatProtection: 'the gateway does not inspect XML bodies',
  AssignMessage: 'the gateway does not rewrite requests: the upstream receives the request as sent (see docs/upstreams.md for the headers it adds)',
  ExtractVariables: 'there are no flow variables in the gateway: whatever used them must be expressed by a policy or moved to the upstream',
  RaiseFault: 'the gateway raises no custom faults: refusals come from its policies, rendered with the error catalogue',
  ResponseCache: 'the gateway does not cache responses',
  ServiceCallout: 'the gateway makes no calls of its own during a request',
  MessageLogging: 'the gateway writes one access line per request to its log (pino JSON); ship that log instead',
  BasicAuthentication: 'the gateway does not decode or encode Basic credentials on routes',
  CORS: 'the gateway adds no CORS headers: answer them at the upstream',
};

/**
 * Translates one policy and validates every entry it produced with the
 * kind's own schema, the one `check` and `serve` load it with, and against
 * the names this import already gave. The translator writes on a draft
 * report: a policy that is written brings its lines over; one that is not
 * (withheld by its translator, an entry that would not load, a name already
 * given) lands in "not translated" only, never also in "translated". (A
 * translator bug shows here first, as a policy left behind, not as a file
 * that stops the gateway.)
 */
export function translatePolicy(policy: PolicyXml, context: TranslateContext): TranslatedPolicy {
  const translator = TRANSLATORS[policy.type];
  if (!translator) {
    context.report.leftBehind(
      policy.place,
      titleOf(policy),
      `no counterpart in the gateway for ${policy.type}`,
      NO_COUNTERPART[policy.type] ?? 'carry its effect over by hand (a policy of one of our kinds, gateway.yaml, or the upstream), or drop it',
    );
    return { entries: [] };
  }
  const draft = new ImportReport();
  const translated = translator(policy, { ...context, report: draft });
  const refusals = [...translated.entries.flatMap((entry) => loadRefusal(entry)), ...nameRefusals(translated.entries, context)];
  if (translated.withheld || refusals.length > 0) {
    context.report.absorb(draft, { gapsOnly: true });
    for (const why of refusals) context.report.leftBehind(policy.place, titleOf(policy), why, 'write the policy by hand from the report above (nothing of it was written)');
    return { entries: [], withheld: true };
  }
  for (const entry of translated.entries) context.taken?.set(entry.name, titleOf(policy));
  context.report.absorb(draft);
  return { ...translated, reported: { translated: draft.translated, differences: draft.differences } };
}

function loadRefusal(entry: PolicyEntry): string[] {
  const kind = POLICY_KINDS.find((candidate) => candidate.kind === entry.kind);
  const parsed = kind?.schema.safeParse(entry);
  if (parsed?.success) return [];
  const issues = parsed?.error.issues.map((issue) => `${issue.path.join('.') || entry.kind}: ${issue.message}`).join('; ') ?? `unknown kind ${entry.kind}`;
  return [`its translation does not load as a ${entry.kind} policy (${issues})`];
}

/** Names are unique across the policies folder (`check` refuses a second): two Apigee names may still spell one of ours. */
function nameRefusals(entries: readonly PolicyEntry[], { taken }: TranslateContext): string[] {
  const own = new Set<string>();
  const refusals: string[] = [];
  for (const { name } of entries) {
    const earlier = own.has(name) ? 'another entry of this policy' : taken?.get(name);
    if (earlier) refusals.push(`its entry would be named ${name}, a name already given to ${earlier}`);
    own.add(name);
  }
  return refusals;
}
