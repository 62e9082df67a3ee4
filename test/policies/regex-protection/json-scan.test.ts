import { describe, expect, it } from 'vitest';
import { builtinPattern, PatternSet } from '../../../src/policies/regex-protection/pattern-set.js';
import { describeFinding, scanJson } from '../../../src/policies/regex-protection/json-scan.js';
import { parseSelector, WHOLE_BODY, type Selector } from '../../../src/policies/regex-protection/selectors.js';

const patterns = new PatternSet([builtinPattern('sql-injection')]);
const SQL = "' or 1=1 --";
const selector = (source: string): Selector => {
  const parsed = parseSelector(source);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.selector;
};
const scan = (body: unknown, ...sources: string[]) => scanJson(body, { selectors: sources.length ? sources.map(selector) : [WHOLE_BODY], asText: false }, patterns);

describe('scanning a parsed JSON body', () => {
  it('finds nothing in a clean body', () => {
    expect(scan({ company: "O'Brien & Sons", filings: [{ year: 2024, order: 'desc' }] })).toBeUndefined();
  });

  it.each([
    [{ name: SQL }, 'body $.name'],
    [{ directors: [{ name: 'x' }, { name: 'y' }, { name: SQL }] }, 'body $.directors[2].name'],
    [[SQL], 'body $[0]'],
    [SQL, 'body $'],
    [{ 'odd key!': SQL }, "body $['odd key!']"],
    [{ "it's": SQL }, "body $['it\\'s']"],
  ])('names where a value matched: %j', (body, where) => {
    expect(scan(body)).toEqual({ pattern: 'sql-injection', where });
  });

  it('tests keys too, naming the object that holds the key (never the key, which may be the secret)', () => {
    expect(scan({ outer: { [SQL]: 1 } })).toEqual({ pattern: 'sql-injection', where: 'a key in body $.outer' });
  });

  it('tests only what the selectors select', () => {
    const body = { safe: { note: SQL }, checked: { note: 'fine' } };
    expect(scan(body, '$.checked')).toBeUndefined();
    expect(scan(body, '$.safe.note')).toEqual({ pattern: 'sql-injection', where: 'body $.safe.note' });
    expect(scan({ list: ['a', SQL] }, '$.list[*]')).toEqual({ pattern: 'sql-injection', where: 'body $.list[1]' });
    expect(scan({ list: ['a', SQL] }, '$.list[0]')).toBeUndefined();
    expect(scan({ other: SQL }, '$.missing')).toBeUndefined();
  });

  it('walks a body nested far deeper than the call stack allows, cutting the path it logs short', () => {
    let body: unknown = SQL;
    for (let depth = 0; depth < 100_000; depth++) body = [body];
    const finding = scan(body)!;
    expect(finding.pattern).toBe('sql-injection');
    expect(finding.where.length).toBeLessThanOrEqual('body '.length + 121);
    expect(finding.where.endsWith('…')).toBe(true);
  });

  it('writes the log detail with the pattern and the place, never the text', () => {
    expect(describeFinding({ pattern: 'sql-injection', where: 'query parameter q' })).toBe('pattern sql-injection matched query parameter q');
  });
});
