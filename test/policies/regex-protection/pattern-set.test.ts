import { describe, expect, it } from 'vitest';
import { builtinPattern, PatternSet, patternSyntaxError } from '../../../src/policies/regex-protection/pattern-set.js';
import { BUILTIN_NAMES, BUILTIN_PATTERNS } from '../../../src/policies/regex-protection/patterns.js';

describe('a pattern set', () => {
  it('names the first pattern in configured order when several match', () => {
    const set = new PatternSet([
      { name: 'later', source: 'drop', caseSensitive: false },
      ...BUILTIN_NAMES.map(builtinPattern),
    ]);
    expect(set.firstMatch("'; drop table users")).toBe('later');
  });

  it('matches in linear time: the classic catastrophic (a+)+$ returns on the input that stalls a backtracking engine', () => {
    const set = new PatternSet([{ name: 'classic', source: '(a+)+$', caseSensitive: true }]);
    // JavaScript's own RegExp would take longer than the universe's age on this input.
    expect(set.firstMatch(`${'a'.repeat(100_000)}!`)).toBeUndefined();
    expect(set.firstMatch('a'.repeat(100_000))).toBe('classic');
  });

  it('matches nothing in an empty string', () => {
    expect(new PatternSet([{ name: 'anything', source: '.*', caseSensitive: false }]).firstMatch('')).toBeUndefined();
  });

  it('ignores case unless the pattern asks for it', () => {
    const set = new PatternSet([
      { name: 'insensitive', source: 'select', caseSensitive: false },
      { name: 'sensitive', source: 'Exception', caseSensitive: true },
    ]);
    expect(set.firstMatch('SELECT')).toBe('insensitive');
    expect(set.firstMatch('EXCEPTION')).toBeUndefined();
    expect(set.firstMatch('Exception')).toBe('sensitive');
  });

  it('is frozen, and keeps matching after many uses (its DFA cache is its own)', () => {
    const set = new PatternSet([builtinPattern('sql-injection')]);
    expect(Object.isFrozen(set)).toBe(true);
    for (let i = 0; i < 100; i++) expect(set.firstMatch(`value ${i}`)).toBeUndefined();
    expect(set.firstMatch("' or 1=1 --")).toBe('sql-injection');
  });
});

describe('a pattern as RE2 reads it', () => {
  it.each(['(?=x)', '(a)\\1', '(unbalanced', '(?<=x)y'])('refuses %s with re2js\'s own message', (source) => {
    expect(patternSyntaxError(source)).toEqual(expect.any(String));
  });

  it.each(['select\\s+', '[a-z]+@[a-z]+', '(a+)+$'])('accepts %s', (source) => {
    expect(patternSyntaxError(source)).toBeUndefined();
  });

  it('names a shipped pattern by its name, with its source and case rule', () => {
    expect(builtinPattern('java-exception')).toEqual({ name: 'java-exception', ...BUILTIN_PATTERNS['java-exception'] });
    expect(BUILTIN_NAMES.map((name) => builtinPattern(name).name)).toEqual([...BUILTIN_NAMES]);
  });
});
