/**
 * Just enough XML for the spec's "Accept: application/xml": flat records and
 * lists of records, every value a string, element names from our own field
 * names (never from client input).
 */
export type XmlValue = string | number | boolean | XmlRecord | readonly XmlRecord[];
export interface XmlRecord {
  readonly [name: string]: XmlValue | undefined;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

const escapeXml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

export function toXmlDocument(root: string, record: XmlRecord, itemName = 'item'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(root, record, itemName)}\n`;
}

function element(name: string, value: XmlValue, itemName: string): string {
  if (Array.isArray(value)) {
    return `<${name}>${value.map((item) => element(itemName, item, itemName)).join('')}</${name}>`;
  }
  if (typeof value === 'object') {
    const children = Object.entries(value as XmlRecord)
      .filter((pair): pair is [string, XmlValue] => pair[1] !== undefined)
      .map(([child, childValue]) => element(child, childValue, itemName))
      .join('');
    return `<${name}>${children}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}
