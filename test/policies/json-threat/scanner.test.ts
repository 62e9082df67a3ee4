import { describe, expect, it } from 'vitest';
import { UNLIMITED, type JsonLimits } from '../../../src/policies/json-threat/limits.js';
import { JsonThreatScanner, measureJson } from '../../../src/policies/json-threat/scanner.js';
import { measureParsed } from './walk.js';

/** The scanner's verdict on a text given in the chunks listed. */
function scan(limits: Partial<JsonLimits>, ...chunks: Array<string | Buffer>): string | undefined {
  const scanner = new JsonThreatScanner({ ...UNLIMITED, ...limits });
  for (const chunk of chunks) {
    const violation = scanner.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (violation) return violation;
  }
  return scanner.end();
}

type Boundary = [label: string, limit: number, atLimit: string, overLimit: string];

/** One table per rule: the first text sits exactly at the limit and passes, the second is one over. */
const rules: Array<{ rule: string; key: keyof JsonLimits; detail: (limit: number) => string; cases: Boundary[] }> = [
  {
    rule: 'max_depth',
    key: 'maxDepth',
    detail: (n) => `nested deeper than ${n} ${n === 1 ? 'level' : 'levels'}`,
    cases: [
      ['arrays', 3, '[[[]]]', '[[[[]]]]'],
      ['objects and arrays', 3, '{"a":{"b":[1]}}', '{"a":{"b":[[1]]}}'],
      ['siblings do not add up', 2, '[[],[],{}]', '[[],[[]],{}]'],
      ['brackets inside strings are text', 1, '["[[[[{{{{"]', '[["[[[[{{{{"]]'],
      ['an escaped quote does not end the string', 1, '["\\"[[["]', '["\\"[[[",[]]'],
    ],
  },
  {
    rule: 'max_object_entries',
    key: 'maxObjectEntries',
    detail: (n) => `object has more than ${n} ${n === 1 ? 'entry' : 'entries'}`,
    cases: [
      ['flat', 2, '{"a":1,"b":2}', '{"a":1,"b":2,"c":3}'],
      ['per object, not per document', 2, '{"a":{"x":1,"y":2},"b":{"z":3}}', '{"a":{"x":1,"y":2,"z":3}}'],
      ['duplicate names count as written', 2, '{"a":1,"a":2}', '{"a":1,"a":2,"a":3}'],
      ['commas and colons inside strings are text', 1, '{"a,b:c":",,:"}', '{"a,b:c":",,:","d":1}'],
      ['array elements are not entries', 1, '{"a":[1,2,3,4]}', '{"a":[1,2,3,4],"b":0}'],
    ],
  },
  {
    rule: 'max_array_elements',
    key: 'maxArrayElements',
    detail: (n) => `array has more than ${n} ${n === 1 ? 'element' : 'elements'}`,
    cases: [
      ['flat', 2, '[1,2]', '[1,2,3]'],
      ['per array', 2, '[[1,2],[3,4]]', '[[1,2],[3,4,5]]'],
      ['containers and literals are one element each', 3, '[{"a":1,"b":2},[true,null],"x"]', '[{"a":1},[],"x",false]'],
      ['whitespace is not an element', 2, ' [ 1 , \n\t2 ] ', '[ 1 , 2 , 3 ]'],
      ['commas inside strings are text', 1, '[",,,"]', '[",,,",1]'],
    ],
  },
  {
    rule: 'max_name_length',
    key: 'maxNameLength',
    detail: (n) => `object entry name longer than ${n} ${n === 1 ? 'character' : 'characters'}`,
    cases: [
      ['ASCII', 3, '{"abc":1}', '{"abcd":1}'],
      ['an escape is one character', 3, '{"\\u0061\\n\\"":1}', '{"\\u0061\\n\\"\\\\":1}'],
      ['a BMP character is one, an astral one two', 3, '{"é😀":1}', '{"😀😀":1}'],
      ['string values are not names', 3, '{"abc":"a much longer value"}', '{"abc":{"abcd":1}}'],
    ],
  },
  {
    rule: 'max_string_length',
    key: 'maxStringLength',
    detail: (n) => `string longer than ${n} characters`,
    cases: [
      ['ASCII', 3, '"abc"', '"abcd"'],
      ['escapes are one character each', 3, '["\\n\\t\\""]', '["\\n\\t\\"\\/"]'],
      ['an escaped surrogate pair is two', 3, '"\\uD83D\\uDE00a"', '"\\uD83D\\uDE00ab"'],
      ['a 4-byte character is two', 3, '"😀a"', '"😀😀"'],
      ['three-byte characters are one each', 3, '"中文字"', '"中文字符"'],
      ['names are not string values', 3, '{"a long entry name":"abc"}', '{"a long entry name":"abcd"}'],
    ],
  },
  {
    rule: 'max_body_size',
    key: 'maxBodySize',
    detail: (n) => `body larger than ${n} bytes`,
    cases: [
      ['ASCII', 7, '{"a":1}', '{"a":12}'],
      ['bytes, not characters', 4, '"é"', '"é "'],
      ['whitespace counts', 4, '  []', '   []'],
    ],
  },
];

describe.each(rules)('$rule', ({ key, detail, cases }) => {
  it.each(cases)('%s: exactly at %i passes', (_label, limit, atLimit) => {
    expect(scan({ [key]: limit }, atLimit)).toBeUndefined();
  });

  it.each(cases)('%s: one over %i is refused', (_label, limit, _atLimit, overLimit) => {
    expect(scan({ [key]: limit }, overLimit)).toBe(detail(limit));
  });
});

describe('chunk boundaries', () => {
  // Escapes (\u with a surrogate pair, \\ and \"), 2-, 3- and 4-byte UTF-8, nesting and whitespace.
  const sample = Buffer.from(
    '{"naïve \\u00e9\\"": ["😀\\ud83d\\ude00", "a\\\\\\"b", {"k€y": "中文\\n", "z": [[]]}],\n "x": [1, -2.5e3, true, null, "\\u0041"]}',
  );
  const whole = measureJson([sample]);
  const offsets = Array.from({ length: sample.length + 1 }, (_, i) => i);

  it('measures the sample as JSON.parse sees it', () => {
    expect(whole).toEqual({ ...measureParsed(JSON.parse(sample.toString())), bytes: sample.length });
  });

  it.each(offsets)('a split at byte %i measures the same', (at) => {
    expect(measureJson([sample.subarray(0, at), sample.subarray(at)])).toEqual(whole);
  });

  it('one byte per chunk measures the same', () => {
    expect(measureJson(offsets.slice(0, -1).map((i) => sample.subarray(i, i + 1)))).toEqual(whole);
  });

  it.each(offsets)('a split at byte %i keeps the verdicts at and just under every limit', (at) => {
    const atLimits: JsonLimits = {
      maxDepth: whole.depth,
      maxObjectEntries: whole.objectEntries,
      maxArrayElements: whole.arrayElements,
      maxNameLength: whole.nameLength,
      maxStringLength: whole.stringLength,
      maxBodySize: whole.bytes,
    };
    expect(scan(atLimits, sample.subarray(0, at), sample.subarray(at))).toBeUndefined();
    for (const key of Object.keys(atLimits) as Array<keyof JsonLimits>) {
      const unsplit = scan({ ...atLimits, [key]: atLimits[key] - 1 }, sample);
      expect(unsplit).toBeDefined();
      expect(scan({ ...atLimits, [key]: atLimits[key] - 1 }, sample.subarray(0, at), sample.subarray(at))).toBe(unsplit);
    }
  });
});

describe('hostile and invalid input', () => {
  it('stops a million-deep document at the first level past the limit', () => {
    const scanner = new JsonThreatScanner({ ...UNLIMITED, maxDepth: 32 });
    expect(scanner.write(Buffer.from('['.repeat(1_000_000)))).toBe('nested deeper than 32 levels');
    expect(scanner.stats().depth).toBe(33);
  });

  it('keeps reporting the first violation', () => {
    const scanner = new JsonThreatScanner({ ...UNLIMITED, maxArrayElements: 1 });
    expect(scanner.write(Buffer.from('[1,2'))).toBe('array has more than 1 element');
    expect(scanner.write(Buffer.from('"a very long string"]'))).toBe('array has more than 1 element');
    expect(scanner.end()).toBe('array has more than 1 element');
  });

  it('never repeats body content in a violation', () => {
    const detail = scan({ maxStringLength: 4 }, '{"password":"hunter2-secret"}');
    expect(detail).toBe('string longer than 4 characters');
  });

  const invalid: Array<string | Buffer> = ['', '   ', '[', ']]]}}}', '{"a', '"\\u12', '"\\', '"\\u', '}{', '[1,,]', '{"a" "b"}', 'nul'];
  invalid.push(Buffer.from([0xff, 0xfe, 0x5b]), Buffer.from([0x22, 0xe2, 0x82]), Buffer.from([0x5c, 0x80, 0xc0, 0x22]));

  it.each(invalid)('measures invalid or partial input %s without throwing', (text) => {
    expect(() => scan({ maxDepth: 1, maxStringLength: 1 }, text)).not.toThrow();
    expect(() => measureJson(typeof text === 'string' ? text : [text])).not.toThrow();
  });

  it('names a limit of 1 in the singular', () => {
    expect(scan({ maxDepth: 1 }, '{"a":[1]}')).toBe('nested deeper than 1 level');
    expect(scan({ maxObjectEntries: 1 }, '{"a":1,"b":2}')).toBe('object has more than 1 entry');
    expect(scan({ maxArrayElements: 1 }, '[1,2]')).toBe('array has more than 1 element');
    expect(scan({ maxNameLength: 1 }, '{"ab":1}')).toBe('object entry name longer than 1 character');
    expect(scan({ maxStringLength: 1 }, '["ab"]')).toBe('string longer than 1 character');
  });

  it('measures a string cut short at the end of the body', () => {
    expect(measureJson('["abc').stringLength).toBe(3);
    expect(scan({ maxStringLength: 3 }, '["abcd')).toBe('string longer than 3 characters');
  });

  it('counts malformed UTF-8 as the replacement characters JSON.parse will see', () => {
    const body = Buffer.from([0x22, 0xe2, 0x82, 0x80, 0x80, 0xff, 0xf0, 0x9f, 0x22]);
    expect(measureJson([body]).stringLength).toBe(JSON.parse(body.toString('utf8')).length);
  });
});
