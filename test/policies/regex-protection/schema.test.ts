import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { regexProtectionSchema } from '../../../src/policies/regex-protection/schema.js';

const NAME_AND_KIND = { name: 'injection-guard', kind: 'regex-protection' };

function issuesOf(settings: Record<string, unknown>): Array<{ path: PropertyKey[]; message: string }> {
  const result = regexProtectionSchema.safeParse({ ...NAME_AND_KIND, ...settings });
  expect(result.success).toBe(false);
  return (result.error?.issues ?? []).map(({ path, message }) => ({ path, message }));
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

const OPERATOR_EXAMPLE = `
policies:
  - name: injection-guard
    kind: regex-protection
    description: Shipped patterns plus two of our own on the scoring API
    builtin: [sql-injection, server-side-include, xpath, javascript, java-exception]
    patterns:
      - name: path-traversal
        pattern: '(?:^|[/\\\\])\\.\\.(?:[/\\\\]|$)'
      - name: internal-host
        pattern: '\\bcorp\\.internal\\b'
        case_sensitive: false
    apply_to:
      path: true
      query: true
      headers: [X-Customer-Reference, Referer]
      json_body: ["$.company.name", "$.directors[*]", "$['search terms']"]
`;

describe('regex-protection schema: what loads', () => {
  it('defaults to every shipped pattern over path, query and the whole JSON body, no headers', () => {
    const settings = regexProtectionSchema.parse(NAME_AND_KIND);
    expect(settings.builtin).toEqual(['sql-injection', 'server-side-include', 'xpath', 'javascript', 'java-exception']);
    expect(settings.patterns).toEqual([]);
    expect(settings.apply_to).toEqual({ path: true, query: true, query_params: [], json_text: false, headers: [], json_body: [{ source: '$', segments: [] }] });
    expect(settings.patternSet.firstMatch("' or 1=1 --")).toBe('sql-injection');
  });

  it('loads the README example, lower-casing header names and parsing selectors once', () => {
    const [entry] = (parse(OPERATOR_EXAMPLE) as { policies: unknown[] }).policies;
    const settings = regexProtectionSchema.parse(entry);
    expect(settings.apply_to.headers).toEqual(['x-customer-reference', 'referer']);
    expect(settings.apply_to.json_body.map(({ source }) => source)).toEqual(['$.company.name', '$.directors[*]', "$['search terms']"]);
    expect(settings.patterns[1]).toEqual({ name: 'internal-host', pattern: '\\bcorp\\.internal\\b', case_sensitive: false });
    expect(settings.patternSet.firstMatch('/files/../../etc/passwd')).toBe('path-traversal');
  });

  it('takes builtin: [] to apply only the operator\'s own patterns', () => {
    const settings = regexProtectionSchema.parse({ ...NAME_AND_KIND, builtin: [], patterns: [{ name: 'no-tabs', pattern: '\\t' }] });
    expect(settings.patternSet.firstMatch("' or 1=1 --")).toBeUndefined();
    expect(settings.patternSet.firstMatch('a\tb')).toBe('no-tabs');
  });

  it('still matches once the settings are deep-frozen, as config is', () => {
    const settings = regexProtectionSchema.parse(NAME_AND_KIND);
    deepFreeze(settings);
    expect(settings.patternSet.firstMatch('<script>')).toBe('javascript');
  });

  it('reads json_body: none as no selector, so the body is never read', () => {
    expect(regexProtectionSchema.parse({ ...NAME_AND_KIND, apply_to: { json_body: 'none' } }).apply_to.json_body).toEqual([]);
  });
});

describe('regex-protection schema: patterns are refused at load with re2js\'s message, at their key', () => {
  it.each([
    ['(select', 'error parsing regexp: missing closing ): `(select`'],
    ['(?=admin)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    ['(?!admin)x', 'error parsing regexp: invalid or unsupported Perl syntax: `(?!`'],
    ['(?<=a)b', 'error parsing regexp: invalid named capture: `(?<=a)b`'],
    ['(a)\\1', 'error parsing regexp: invalid escape sequence: `\\1`'],
    ['[z-a]', 'error parsing regexp: invalid character class range: `z-a`'],
  ])('%j', (pattern, message) => {
    expect(issuesOf({ patterns: [{ name: 'mine', pattern }] })).toEqual([{ path: ['patterns', 0, 'pattern'], message }]);
  });

  it('keeps the message free of the (?i) that case-insensitivity adds', () => {
    const [issue] = issuesOf({ patterns: [{ name: 'mine', pattern: '(a', case_sensitive: false }] });
    expect(issue?.message).toBe('error parsing regexp: missing closing ): `(a`');
  });
});

describe('regex-protection schema: other mistakes, each at its key', () => {
  it.each<[string, Record<string, unknown>, PropertyKey[], string]>([
    ['an unknown builtin', { builtin: ['sql'] }, ['builtin', 0], 'expected one of sql-injection, server-side-include, xpath, javascript, java-exception, got "sql"'],
    ['a builtin listed twice', { builtin: ['xpath', 'xpath'] }, ['builtin', 1], '"xpath" is listed twice'],
    ['nothing to test', { builtin: [], patterns: [] }, ['patterns'], 'nothing to test: keep a builtin or add a pattern'],
    ['a plain string pattern', { patterns: ['drop'] }, ['patterns', 0], 'expected a mapping (key: value lines), got a string'],
    [
      'a pattern named like a shipped one',
      { patterns: [{ name: 'xpath', pattern: 'x' }] },
      ['patterns', 0, 'name'],
      'is the name of a shipped pattern; choose another so logs tell them apart',
    ],
    ['two patterns of one name', { patterns: [{ name: 'a', pattern: 'x' }, { name: 'a', pattern: 'y' }] }, ['patterns', 1, 'name'], '"a" is listed twice'],
    ['an unknown pattern key', { patterns: [{ name: 'a', pattern: 'x', flags: 'i' }] }, ['patterns', 0], 'Unrecognized key: "flags"'],
    ['an unknown apply_to key', { apply_to: { body: 'all' } }, ['apply_to'], 'Unrecognized key: "body"'],
    ['a header that is not a name', { apply_to: { headers: ['X Bad'] } }, ['apply_to', 'headers', 0], 'expected an HTTP header name'],
    ['json_body of another shape', { apply_to: { json_body: 'some' } }, ['apply_to', 'json_body'], 'expected all, none or a list of selectors'],
    ['an empty selector list', { apply_to: { json_body: [] } }, ['apply_to', 'json_body'], 'list at least one selector, or write none'],
    [
      'a bad selector',
      { apply_to: { json_body: ['$.ok', '$..name'] } },
      ['apply_to', 'json_body', 1],
      'invalid selector "$..name": at character 2: recursive descent ("..") is not supported; use "json_body: all" or list the paths',
    ],
    [
      'no part of the request',
      { apply_to: { path: false, query: false, json_body: 'none' } },
      ['apply_to'],
      'tests no part of the request: enable path, query, query_params, headers or json_body',
    ],
  ])('%s', (_, settings, path, message) => {
    expect(issuesOf(settings)).toEqual([{ path, message }]);
  });
});
