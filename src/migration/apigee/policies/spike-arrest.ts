import type { PolicyXml } from '../policy-xml.js';
import { placeIn, reportUnknownElements } from '../policy-xml.js';
import { booleanOf, childElement, childText, textOf } from '../xml.js';
import { describedFrom, titleOf, type TranslateContext, type TranslatedPolicy } from './translation.js';

const KNOWN = ['DisplayName', 'Properties', 'Rate', 'Identifier', 'MessageWeight', 'UseEffectiveCount'];

/** The flow variables an <Identifier ref> may name that mean one of our identifiers. */
export function identifierOf(ref: string): { identifier: string; header?: string } | undefined {
  if (ref === 'client_id' || ref === 'apigee.client_id') return { identifier: 'client_id' };
  if (ref === 'client.ip' || ref === 'proxy.client.ip') return { identifier: 'ip' };
  const header = /^request\.header\.([!#$%&'*+.^_`|~0-9A-Za-z-]+)$/.exec(ref)?.[1];
  if (header) return { identifier: 'header', header };
  return undefined;
}

/**
 * SpikeArrest -> spike-arrest. Apigee smooths a rate the way our kind does
 * (30ps is one request per 33 ms window, 600pm one per 100 ms), with no burst.
 */
export function translateSpikeArrest(policy: PolicyXml, { report, baseName }: TranslateContext): TranslatedPolicy {
  const title = titleOf(policy);
  reportUnknownElements(policy, KNOWN, report);
  const rateElement = childElement(policy.root, 'Rate');
  const rate = textOf(rateElement);
  if (!rateElement || rateElement.getAttribute('ref')) {
    report.leftBehind(
      rateElement ? placeIn(policy.file, rateElement) : policy.place,
      `${title}: <Rate${rateElement ? ` ref="${rateElement.getAttribute('ref')}"` : ''}>`,
      rateElement ? 'the rate is read from a flow variable at run time; a policy file holds one rate' : 'no <Rate>',
      'write the rate the variable held in production (like 30ps or 600pm) in the policy file',
    );
    return { entries: [] };
  }
  // burst written out, though 0 is the schema's default: Apigee has none, and the file should say so to whoever edits it.
  const entry: Record<string, unknown> = { name: baseName, kind: 'spike-arrest', description: describedFrom(policy, childText(policy.root, 'DisplayName')), rate, burst: 0 };
  let withheld = false;

  const identifier = childElement(policy.root, 'Identifier');
  if (!identifier) {
    entry.identifier = 'all';
    report.carried(policy.place, `${title}: no <Identifier>`, 'identifier: all (one counter for every caller)');
  } else {
    const ref = identifier.getAttribute('ref') ?? '';
    const mapped = identifierOf(ref);
    if (!mapped) {
      report.leftBehind(
        placeIn(policy.file, identifier),
        `${title}: <Identifier ref="${ref}">`,
        'the gateway counts callers by client_id, client address, user (token subject) or one header; this variable is none of them',
        'choose the identifier that partitions callers the same way (identifier: client_id, ip, user, or header with `header:`) and write the policy by hand: it is not written, since another identifier would count callers otherwise than Apigee did',
      );
      withheld = true;
    } else {
      Object.assign(entry, mapped);
      report.carried(placeIn(policy.file, identifier), `${title}: <Identifier ref="${ref}">`, `identifier: ${mapped.identifier}${mapped.header ? ` (header ${mapped.header})` : ''}`);
      report.differs(
        placeIn(policy.file, identifier),
        title,
        'a request the identifier does not resolve for (no token, no header) is counted by its client address here; ' +
          (mapped.identifier === 'ip'
            ? 'the client address is the socket peer, or X-Forwarded-For across trusted_proxies only (set trusted_proxies to your load balancers)'
            : 'Apigee counts such requests under one shared unresolved identifier'),
      );
    }
  }

  const weight = childElement(policy.root, 'MessageWeight');
  if (weight) {
    report.leftBehind(
      placeIn(policy.file, weight),
      `${title}: <MessageWeight ref="${weight.getAttribute('ref') ?? ''}">`,
      'every request counts as one here; a weight read from the request is a cost the client would choose (not worth a field of its own)',
      'lower the rate to what the heaviest requests allowed, or protect those requests by a spike-arrest of their own on their own route; then drop <MessageWeight>',
    );
  }

  const effective = childElement(policy.root, 'UseEffectiveCount');
  const useEffectiveCount = booleanOf(textOf(effective)) ?? false;
  if (useEffectiveCount) {
    report.leftBehind(
      placeIn(policy.file, effective ?? policy.root),
      `${title}: <UseEffectiveCount>true`,
      'Apigee then counts a sliding window of the whole rate without smoothing (a burst up to the rate passes); the gateway always smooths, which would refuse those bursts',
      `keep the smoothing (rate: ${rate}) and add burst: to the policy file for the bursts you must allow, then remove this item by setting UseEffectiveCount to false in the bundle`,
    );
  } else {
    report.differs(
      policy.place,
      title,
      'Apigee counted per message processor (UseEffectiveCount false), so N processors let up to N times the rate through; ' +
        'the gateway counts once for all its instances (through Redis when store: redis), so the rate written is the rate enforced',
    );
  }
  if (withheld) return { entries: [], withheld };
  report.carried(policy.place, title, `spike-arrest ${baseName} (rate ${rate}, smoothed as in Apigee, burst 0)`);
  return { entries: [entry as { name: string; kind: string }] };
}
