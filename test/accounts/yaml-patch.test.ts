import { describe, expect, it } from 'vitest';
import { applyPatches, parsesTo, scalarText } from '../../src/accounts/yaml-patch.js';

describe('applyPatches', () => {
  it('applies patches that point into the original text, whatever their order', () => {
    const text = 'status: active\nname: carol\n';
    const patches = [
      { start: 21, end: 26, text: 'dave' },
      { start: 8, end: 14, text: 'suspended' },
    ];
    expect(applyPatches(text, patches)).toBe('status: suspended\nname: dave\n');
  });

  it('keeps insertions at one offset in the order given', () => {
    expect(applyPatches('ac', [{ start: 1, end: 1, text: 'b' }, { start: 1, end: 1, text: 'B' }])).toBe('abBc');
  });

  it('returns the text unchanged for no patches', () => {
    expect(applyPatches('same', [])).toBe('same');
  });
});

describe('scalarText', () => {
  it.each([
    ['carol', 'plain', 'carol'],
    ['partner-portal', 'plain', 'partner-portal'],
    ['user@example.com', 'plain', 'user@example.com'],
    ['yes', 'plain', '"yes"'],
    ['Off', 'plain', '"Off"'],
    ['null', 'plain', '"null"'],
    ['123', 'plain', '"123"'],
    ['a: b', 'plain', '"a: b"'],
    ['#comment', 'plain', '"#comment"'],
    ['$argon2id$v=19', 'plain', '"$argon2id$v=19"'],
    ['carol', 'double', '"carol"'],
    ["it's", 'single', "'it''s'"],
    ['quote"and\\slash', 'double', '"quote\\"and\\\\slash"'],
  ] as const)('%j as %s: %s', (value, style, text) => {
    expect(scalarText(value, style)).toBe(text);
    expect(parsesTo(`k: ${text}\n`, { k: value })).toBe(true);
  });
});

describe('parsesTo', () => {
  it('is true only for YAML without errors whose data is exactly the expected', () => {
    expect(parsesTo('a: 1\nb: [x]\n', { a: 1, b: ['x'] })).toBe(true);
    expect(parsesTo('a: 1\n', { a: '1' })).toBe(false);
    expect(parsesTo('a: 1\na: 2\n', { a: 2 })).toBe(false); // a duplicate key is an error
    expect(parsesTo('a: [\n', { a: [] })).toBe(false);
  });
});
