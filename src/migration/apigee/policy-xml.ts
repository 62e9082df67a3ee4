import type { Bundle } from './bundle.js';
import type { ImportReport, Place } from './report.js';
import { booleanOf, childElements, lineOf, parseXml, type Element } from './xml.js';

/** One Apigee policy file as read: its type (root element), name and the attributes every policy has. */
export interface PolicyXml {
  readonly type: string;
  readonly name: string;
  readonly enabled: boolean;
  readonly continueOnError: boolean;
  readonly root: Element;
  readonly place: Place;
  /** The policy's file, to place its elements (`placeOf(element)`). */
  readonly file: string;
}

export const placeIn = (file: string, element: Element): Place => ({ file, line: lineOf(element) });

/** Every policy of a bundle (`policies/*.xml`), by name. A file that cannot be read is reported and skipped. */
export function readPolicies(bundle: Bundle, report: ImportReport): Map<string, PolicyXml> {
  const policies = new Map<string, PolicyXml>();
  for (const [path, text] of bundle.files) {
    if (!/^policies\/[^/]+\.xml$/.test(path)) continue;
    const file = bundle.displayPath(path);
    const root = parseOrReport(text, file, report);
    if (!root) continue;
    const name = root.getAttribute('name') || path.slice('policies/'.length, -'.xml'.length);
    policies.set(name, {
      type: root.localName ?? root.tagName,
      name,
      enabled: booleanOf(root.getAttribute('enabled') ?? undefined) ?? true,
      continueOnError: booleanOf(root.getAttribute('continueOnError') ?? undefined) ?? false,
      root,
      place: placeIn(file, root),
      file,
    });
  }
  return policies;
}

/** Parses a bundle file; an unreadable one goes to the report as not translated. */
export function parseOrReport(text: string, file: string, report: ImportReport): Element | undefined {
  try {
    return parseXml(text, file);
  } catch (error) {
    const { line, message } = error as { line?: number; message: string };
    report.leftBehind({ file, line }, 'the file', message, 'fix the XML (Apigee would not deploy it either) and import again');
    return undefined;
  }
}

/** The child elements a translator did not read: each is reported, never dropped silently. */
export function reportUnknownElements(policy: PolicyXml, known: readonly string[], report: ImportReport): void {
  for (const element of childElements(policy.root)) {
    if (known.includes(element.localName ?? '')) continue;
    report.leftBehind(
      placeIn(policy.file, element),
      `${policy.type} ${policy.name}: <${element.localName}>`,
      'an element this import does not know for this policy type',
      'check its meaning in Apigee\'s policy reference and carry it over by hand, or remove it if it is inert',
    );
  }
}
