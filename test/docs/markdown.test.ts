import { describe, expect, it } from 'vitest';
import { cell, code, table } from '../../src/docs/markdown.js';

describe('docs/markdown: the Markdown the generated tables need', () => {
  it.each<[string, string]>([
    ['plain', 'plain'],
    // A "|" would end the cell, a newline the row.
    ['a | b', 'a \\| b'],
    ['`a|b`', '`a\\|b`'],
    ['one\ntwo', 'one two'],
    ['one  \n   two\n\nthree', 'one two three'],
    ['', ''],
  ])('cell(%j) is %j', (text, expected) => {
    expect(cell(text)).toBe(expected);
  });

  it.each<[string, string]>([
    ['listen.port', '`listen.port`'],
    // A fence one backtick longer than the longest run inside, padded where the text starts or ends with one.
    ['a`b', '``a`b``'],
    ['a``b`c', '```a``b`c```'],
    ['`x`', '`` `x` ``'],
    ['x`', '`` x` ``'],
    ['', '``'],
  ])('code(%j) is %j', (text, expected) => {
    expect(code(text)).toBe(expected);
  });

  it('writes a GitHub-flavoured table: the header, its rule, a row per row, every cell escaped', () => {
    expect(table(['key', 'meaning'], [['`a`', 'one | two'], ['`b`', 'three\nfour']])).toBe(
      ['| key | meaning |', '| --- | --- |', '| `a` | one \\| two |', '| `b` | three four |'].join('\n'),
    );
  });

  it('writes the header and its rule alone for no rows', () => {
    expect(table(['a', 'b', 'c'], [])).toBe('| a | b | c |\n| --- | --- | --- |');
  });
});
