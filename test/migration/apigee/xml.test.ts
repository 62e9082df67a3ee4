import { describe, expect, it } from 'vitest';
import { booleanOf, BundleXmlError, childElement, childElements, childText, lineOf, parseXml, textOf } from '../../../src/migration/apigee/xml.js';

/** The refusal as the report shows it (file, line, message), or the root element's name. */
function outcome(text: string): string | { line: number | undefined; message: string } {
  try {
    return parseXml(text, 'apiproxy/policies/SA.xml').localName ?? '';
  } catch (error) {
    if (!(error instanceof BundleXmlError)) throw error;
    expect(error.file).toBe('apiproxy/policies/SA.xml');
    return { line: error.line, message: error.message };
  }
}

const BILLION_LAUGHS = '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n]>\n<SpikeArrest name="SA">&lol2;</SpikeArrest>';
const EXTERNAL_ENTITY = '<?xml version="1.0"?>\n\n<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<SpikeArrest>&xxe;</SpikeArrest>';
const REFUSED = 'a DOCTYPE or ENTITY declaration (refused: bundles need none)';

describe('migration/apigee/xml: parsing one bundle file', () => {
  it.each<[string, string, string]>([
    ['an element', '<SpikeArrest name="SA"><Rate>10ps</Rate></SpikeArrest>', 'SpikeArrest'],
    ['an XML declaration, comments and white space around the root', '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<!-- exported -->\n<SpikeArrest/>\n', 'SpikeArrest'],
    ['the predefined entities and character references', '<Pattern>&lt;script&gt;&amp;&#65;&#x42;</Pattern>', 'Pattern'],
    ['a prefixed root (its local name)', '<a:SpikeArrest xmlns:a="urn:apigee"/>', 'SpikeArrest'],
  ])('reads %s', (_what, text, root) => {
    expect(outcome(text)).toBe(root);
  });

  it.each<[string, string, number]>([
    // No entity is ever declared, let alone expanded: the text is refused before the parser sees it.
    ['a billion-laughs DOCTYPE with internal entities', BILLION_LAUGHS, 2],
    ['an external entity (XXE)', EXTERNAL_ENTITY, 3],
    ['a bare DOCTYPE', '<!DOCTYPE SpikeArrest>\n<SpikeArrest/>', 1],
    ['a DOCTYPE in lower case', '\n<!doctype SpikeArrest><SpikeArrest/>', 2],
    ['an ENTITY declaration without a DOCTYPE', '<SpikeArrest>\n\n\n<!ENTITY x "y"></SpikeArrest>', 4],
    ['a DOCTYPE inside a comment (refused all the same: no parse is worth the doubt)', '<!-- <!DOCTYPE x> -->\n<SpikeArrest/>', 1],
    ['a DOCTYPE inside CDATA', '<Pattern>\n<![CDATA[<!DOCTYPE x>]]></Pattern>', 2],
  ])('refuses %s, naming the line of the declaration', (_what, text, line) => {
    expect(outcome(text)).toEqual({ line, message: REFUSED });
  });

  it.each<[string, string, number, RegExp]>([
    // [case, text, the line the report names, the message]
    ['a mismatched closing tag', '<SpikeArrest>\n  <Rate>10ps\n</SpikeArrest>', 2, /^not well-formed XML: Opening and ending tag mismatch/],
    ['an undeclared entity', '<SpikeArrest>\n<Rate>&lol;</Rate></SpikeArrest>', 2, /^not well-formed XML: entity not found:&lol;/],
    ['a repeated attribute', '<SpikeArrest>\n\n<Rate a="1" a="2"/></SpikeArrest>', 3, /^not well-formed XML: Attribute a redefined/],
  ])('refuses %s as not well-formed, with its line for the report', (_what, text, line, message) => {
    const result = outcome(text) as { line: number | undefined; message: string };
    expect(result.message).toMatch(message);
    expect(result.line).toBe(line);
  });

  it.each<[string, string, RegExp]>([
    ['two root elements', '<SpikeArrest/><Quota/>', /^not well-formed XML/],
    ['text after the root', '<SpikeArrest/>junk', /^not well-formed XML: Extra content at the end of the document/],
    ['an empty file', '', /^not well-formed XML: missing root element/],
    ['text only', 'SpikeArrest', /^not well-formed XML: missing root element/],
  ])('refuses %s', (_what, text, message) => {
    expect((outcome(text) as { message: string }).message).toMatch(message);
  });

  it('places a fault without a position (an empty file) at line 1: the report always leads with file:line', () => {
    expect((outcome('') as { line: number | undefined }).line).toBe(1);
  });

  it('finds child elements, of one name or all, skipping text and comments', () => {
    const root = parseXml('<P>\n  <!-- c -->\n  <A>1</A> text <B/>\n  <A> 2 </A>\n</P>', 'f.xml');
    expect(childElements(root).map((element) => element.localName)).toEqual(['A', 'B', 'A']);
    expect(childElements(root, 'A').map(textOf)).toEqual(['1', '2']);
    expect(childElements(root, 'C')).toEqual([]);
    expect(childElement(root, 'B')?.localName).toBe('B');
    expect(childElement(root, 'C')).toBeUndefined();
    expect(lineOf(childElement(root, 'B')!)).toBe(3);
  });

  it('reads text trimmed, and tells an empty element from an absent one', () => {
    const root = parseXml('<P><Rate>  10ps\n</Rate><Empty/><Nested><X>a</X><Y>b</Y></Nested></P>', 'f.xml');
    expect(childText(root, 'Rate')).toBe('10ps');
    expect(childText(root, 'Empty')).toBe('');
    expect(childText(root, 'Missing')).toBeUndefined();
    expect(childText(root, 'Nested')).toBe('ab');
    expect(textOf(undefined)).toBeUndefined();
  });

  it.each<[string | undefined, boolean | undefined]>([
    ['true', true],
    ['TRUE', true],
    [' True ', true],
    ['false', false],
    ['False', false],
    ['yes', undefined],
    ['1', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('reads the boolean %j as %j (Apigee writes true/false in any case)', (text, value) => {
    expect(booleanOf(text)).toBe(value);
  });
});
