/**
 * Reads the gateway's XML (src/http/xml.ts: elements and text only, no
 * attributes, no mixed content) into plain values, so that an XML body can be
 * validated against the same schema as its JSON twin. An element named in
 * `arrays` (a property the document marks `xml: { wrapped: true }`) becomes
 * an array of its children; other elements with children become objects;
 * leaves are strings (Ajv's type coercion reads "false" as false).
 */
export function readXml(text: string, arrays: ReadonlySet<string>): { root: string; value: unknown } {
  const reader = new Reader(text.replace(/^<\?xml[^?]*\?>\s*/, ''), arrays);
  const element = reader.element();
  if (reader.rest().trim() !== '') throw new Error(`content after the root element: ${reader.rest().slice(0, 40)}`);
  return { root: element.name, value: element.value };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescape = (text: string): string => text.replace(/&(amp|lt|gt|quot|apos);/g, (_match, name: string) => ENTITIES[name] ?? '');

class Reader {
  private at = 0;

  constructor(
    private readonly text: string,
    private readonly arrays: ReadonlySet<string>,
  ) {}

  rest(): string {
    return this.text.slice(this.at);
  }

  element(): { name: string; value: unknown } {
    const open = /^<([A-Za-z_][\w.-]*)>/.exec(this.rest());
    if (!open?.[1]) throw new Error(`expected an element at ${this.rest().slice(0, 40)}`);
    const name = open[1];
    this.at += open[0].length;
    const children: Array<{ name: string; value: unknown }> = [];
    let text = '';
    while (!this.rest().startsWith(`</${name}>`)) {
      if (this.rest() === '') throw new Error(`<${name}> is not closed`);
      if (this.rest().startsWith('<')) children.push(this.element());
      else {
        const end = this.text.indexOf('<', this.at);
        text += this.text.slice(this.at, end < 0 ? undefined : end);
        this.at = end < 0 ? this.text.length : end;
      }
    }
    this.at += name.length + 3;
    if (children.length > 0 && text.trim() !== '') throw new Error(`<${name}> mixes text and elements`);
    if (this.arrays.has(name)) return { name, value: children.map((child) => child.value) };
    if (children.length > 0) {
      if (new Set(children.map((child) => child.name)).size < children.length) throw new Error(`<${name}> repeats an element that is not a documented list`);
      return { name, value: Object.fromEntries(children.map((child) => [child.name, child.value])) };
    }
    return { name, value: unescape(text) };
  }
}
