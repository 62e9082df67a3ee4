import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { translateJavaRegex } from '../../../src/migration/apigee/java-regex.js';

/** Does the translation find the pattern in `text`, as Java's Matcher.find would? */
const finds = (java: string, text: string): boolean => {
  const translated = translateJavaRegex(java);
  if ('refused' in translated) throw new Error(translated.refused);
  return RE2JS.compile(translated.re2).matcher(text).find();
};

describe('Java regex to RE2: the Java meaning is kept', () => {
  it.each([
    // [java pattern, text, Java's Matcher.find]
    ['a.b', 'a\rb', false], // Java's . excludes \r
    ['a.b', 'axb', true],
    ['abc$', 'abc\n', true], // Java's $ matches before a final line terminator
    ['abc$', 'abc\nx', false],
    ['abc\\Z', 'abc\r\n', true],
    ['a\\sb', 'a\u000Bb', true], // Java's \s includes \x0B
    ['a[\\s]b', 'a\u000Bb', true],
    ['a\\vb', 'a\nb', true], // Java's \v is vertical whitespace
    ['\\bor\\b', 'a or b', true],
    ['\\bor\\b', 'Oregon', false],
    ['OR', 'or', false], // case-sensitive by default
    ['(?i)drop\\s+table', 'DROP TABLE', true],
    ['\\u0041\\x42\\0103', 'ABC', true],
    ['\\Q.*\\E', 'a.*b', true],
    ['\\Q.*\\E', 'ab', false],
    ['\\p{Alpha}+', 'é', false], // POSIX classes are ASCII in Java
    ['\\p{L}', 'é', true],
    ['(?<year>\\d{4})', '2024', true],
    ['x{2,3}', 'xx', true],
    ['\\e', '\u001B', true],
  ])('%j on %j finds: %s', (java, text, expected) => {
    expect(finds(java, text)).toBe(expected);
  });
});

describe('Java regex to RE2: what RE2 cannot run is refused with the reason', () => {
  it.each([
    ['(?=admin)', /lookaround/],
    ['(?<!x)y', /lookaround/],
    ['(a)\\1', /backreference/],
    ['\\k<n>', /named backreference/],
    ['a*+', /possessive/],
    ['a{2}+', /possessive/],
    ['(?>a)', /atomic/],
    ['(?s)a.b', /\(\?s\)/],
    ['(?m)^a', /\(\?m\)/],
    ['[a-z&&[^aeiou]]', /"\[" inside a character class|intersection/],
    ['[[:alpha:]]', /inside a character class/],
    ['\\G', /\\G/],
    ['a{1001}', /repetition above 1000/],
    ['\\p{InGreek}', /block/],
    ['[a', /unclosed/],
    ['\\y', /escape \\y/],
  ])('%j', (java, reason) => {
    const translated = translateJavaRegex(java);
    expect('refused' in translated && translated.refused).toMatch(reason);
  });

  it('states where RE2 and Java may still differ', () => {
    const translated = translateJavaRegex('(?i)\\bk');
    expect('notes' in translated && translated.notes.join('\n')).toMatch(/Unicode rules[\s\S]*\\b/);
  });

  it.each(['(?iu)k', '(?u)(?i)k', '(?i)(?u)k'])('states no case-folding difference where Java folds by Unicode rules too: %s', (java) => {
    const translated = translateJavaRegex(java);
    expect('notes' in translated && translated.notes).toEqual([]);
  });

  it.each(['(?i)k', '(?u)(?-u)(?i)k', '(?:(?u)x)(?i)k'])('states the case-folding difference where Java folds by ASCII rules: %s', (java) => {
    const translated = translateJavaRegex(java);
    expect('notes' in translated && translated.notes.join('\n')).toMatch(/Unicode rules/);
  });
});
