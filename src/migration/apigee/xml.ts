import { DOMParser, type Element } from '@xmldom/xmldom';

/** An XML file of a bundle could not be read: the report names the file and line. */
export class BundleXmlError extends Error {
  override readonly name = 'BundleXmlError';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** Element nodes are 1 (W3C DOM). */
const ELEMENT_NODE = 1;

/**
 * Parses one bundle file. A DOCTYPE is refused outright: bundles never need
 * one, and refusing it means no entity of any kind is ever declared, let
 * alone expanded (billion laughs, external entities). xmldom itself never
 * fetches external entities; this refusal is the second wall.
 */
export function parseXml(text: string, file: string): Element {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new BundleXmlError(file, lineOfText(text, /<!DOCTYPE|<!ENTITY/i), 'a DOCTYPE or ENTITY declaration (refused: bundles need none)');
  let first: { message: string; line: number | undefined } | undefined;
  const parser = new DOMParser({
    onError: (level, message, context: { locator?: { lineNumber?: number } } | undefined) => {
      if (level === 'warning') return;
      // xmldom 0.9 puts the position in the context's locator, not in the message.
      first ??= { message, line: context?.locator?.lineNumber };
      throw new Error(message);
    },
  });
  let root: Element | null;
  try {
    root = parser.parseFromString(text, 'text/xml').documentElement;
  } catch (error) {
    const message = first?.message ?? (error instanceof Error ? error.message : String(error));
    // Without a position (xmldom says line 0 for an empty file) the fault is the file's from its first line: the report still leads with file:line.
    throw new BundleXmlError(file, first?.line || 1, `not well-formed XML: ${message.split('\n')[0] ?? message}`);
  }
  if (!root) throw new BundleXmlError(file, 1, 'no root element');
  return root;
}

const lineOfText = (text: string, pattern: RegExp): number | undefined => {
  const at = text.search(pattern);
  return at < 0 ? undefined : text.slice(0, at).split('\n').length;
};

/** The element's child elements, optionally only those of one name. */
export function childElements(element: Element, name?: string): Element[] {
  const found: Element[] = [];
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === ELEMENT_NODE && (name === undefined || (node as Element).localName === name)) found.push(node as Element);
  }
  return found;
}

export const childElement = (element: Element, name: string): Element | undefined => childElements(element, name)[0];

/** Trimmed text content, or undefined for an absent element. */
export const textOf = (element: Element | undefined): string | undefined => (element ? (element.textContent ?? '').trim() : undefined);

export const childText = (element: Element, name: string): string | undefined => textOf(childElement(element, name));

export const lineOf = (element: Element): number => element.lineNumber ?? 0;

/** Apigee writes booleans as true/false in any case; anything else is not a boolean. */
export function booleanOf(text: string | undefined): boolean | undefined {
  if (text === undefined) return undefined;
  const lower = text.trim().toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : undefined;
}

export type { Element };
