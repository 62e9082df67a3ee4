import { parseCidr } from '../../../net/address-range.js';
import type { PolicyXml } from '../policy-xml.js';
import { placeIn, reportUnknownElements } from '../policy-xml.js';
import { childElement, childElements, childText, textOf } from '../xml.js';
import { describedFrom, titleOf, type TranslateContext, type TranslatedPolicy } from './translation.js';

const KNOWN = ['DisplayName', 'Properties', 'IPRules', 'ClientIPVariable', 'ValidateBasedOn'];
const EVERY_ADDRESS = ['0.0.0.0/0', '::/0'];
const VARIABLE = /\{[^}]*\}/;

/**
 * AccessControl -> ip-range. Apigee tries the MatchRules in order and the
 * first whose SourceAddress (with its mask, 32 by default for IPv4 and 128
 * for IPv6) holds the address decides; noRuleMatchAction (ALLOW by default)
 * decides the rest. That is our kind's rule exactly.
 */
export function translateAccessControl(policy: PolicyXml, { report, baseName }: TranslateContext): TranslatedPolicy {
  const title = titleOf(policy);
  reportUnknownElements(policy, KNOWN, report);
  const rulesElement = childElement(policy.root, 'IPRules');
  const fallback = (rulesElement?.getAttribute('noRuleMatchAction') || 'ALLOW').toUpperCase();
  const rules: Array<Record<string, string[]>> = [];
  for (const rule of rulesElement ? childElements(rulesElement, 'MatchRule') : []) {
    const action = (rule.getAttribute('action') ?? '').toUpperCase();
    if (action !== 'ALLOW' && action !== 'DENY') {
      report.leftBehind(placeIn(policy.file, rule), `${title}: <MatchRule action="${rule.getAttribute('action') ?? ''}">`, 'an action other than ALLOW or DENY', 'fix the rule in the bundle and import again');
      return { entries: [] };
    }
    const ranges: string[] = [];
    for (const address of childElements(rule, 'SourceAddress')) {
      const text = textOf(address) ?? '';
      const mask = address.getAttribute('mask') || undefined;
      if (VARIABLE.test(text) || (mask && VARIABLE.test(mask))) {
        report.leftBehind(placeIn(policy.file, address), `${title}: <SourceAddress${mask ? ` mask="${mask}"` : ''}>${text}`, 'the address or mask is read from a flow variable (a KVM, a header) at run time; rules are compiled when the file loads', 'write the ranges the variable held into the policy file; the order of rules decides, so the whole policy was left for you');
        return { entries: [] };
      }
      const cidr = mask ? `${text}/${mask}` : text;
      if (!parseCidr(cidr)) {
        report.leftBehind(placeIn(policy.file, address), `${title}: <SourceAddress>${cidr}`, 'not an IPv4 or IPv6 address with a mask', 'fix the address in the bundle and import again');
        return { entries: [] };
      }
      ranges.push(cidr);
    }
    if (ranges.length === 0) continue; // a rule without addresses matches nothing
    rules.push({ [action.toLowerCase()]: ranges });
  }
  if (fallback !== 'ALLOW' && fallback !== 'DENY') {
    report.leftBehind(placeIn(policy.file, rulesElement ?? policy.root), `${title}: noRuleMatchAction="${fallback}"`, 'neither ALLOW nor DENY', 'fix it in the bundle and import again');
    return { entries: [] };
  }
  const defaultAction = fallback.toLowerCase();
  // Our kind needs at least one rule; "no rule" is the default for every address.
  if (rules.length === 0) rules.push({ [defaultAction]: EVERY_ADDRESS });
  clientAddressAdvice(policy, report);
  report.carried(policy.place, title, `ip-range ${baseName} (${rules.length} rule${rules.length === 1 ? '' : 's'} in order, default ${defaultAction})`);
  return {
    entries: [{ name: baseName, kind: 'ip-range', description: describedFrom(policy, childText(policy.root, 'DisplayName')), rules, default: defaultAction }],
  };
}

/** Which address is checked: Apigee reads X-Forwarded-For as the client sent it; the gateway believes it only across trusted_proxies. */
function clientAddressAdvice(policy: PolicyXml, report: TranslateContext['report']): void {
  const title = titleOf(policy);
  const variable = childElement(policy.root, 'ClientIPVariable');
  if (variable) {
    const name = textOf(variable) ?? '';
    if (name === 'proxy.client.ip' || name === 'client.ip') {
      report.differs(placeIn(policy.file, variable), title, `${name} is the client address the gateway resolves itself: the socket peer, or X-Forwarded-For across trusted_proxies; list your load balancers in trusted_proxies`);
    } else {
      report.leftBehind(placeIn(policy.file, variable), `${title}: <ClientIPVariable>${name}`, 'the gateway checks the address it resolves itself (socket peer, or X-Forwarded-For across trusted_proxies), never one a flow variable holds', 'if the variable came from a header your load balancer writes, put that balancer in trusted_proxies so its X-Forwarded-For is believed, then remove this element');
    }
  }
  const basedOn = (childText(policy.root, 'ValidateBasedOn') ?? 'X_FORWARDED_FOR_ALL_IP').toUpperCase();
  report.differs(
    placeIn(policy.file, childElement(policy.root, 'ValidateBasedOn') ?? policy.root),
    title,
    `Apigee checked ${basedOn === 'X_FORWARDED_FOR_FIRST_IP' ? 'the first' : basedOn === 'X_FORWARDED_FOR_LAST_IP' ? 'the last' : 'every'} X-Forwarded-For address as received (${basedOn}); ` +
      'the gateway checks one address: the socket peer, or, when the peer is in trusted_proxies, the first X-Forwarded-For hop (from the right) that is not. ' +
      'Set trusted_proxies (gateway.yaml) to your load balancers; an entry a client writes itself is never believed, so a spoofed allowed address no longer passes',
  );
}
