import { describe, expect, it } from 'vitest';
import type { PolicyCheck } from '../../../src/policies/policy.js';
import { policyRequest, type PolicyRequestInit } from '../../helpers/policy-request.js';
import { regexProtection } from '../../../src/policies/regex-protection/check.js';
import { compile, detailOf, JSON_HEADERS, jsonBody, SQL } from './compile.js';

describe('regex-protection: ordinary requests pass', () => {
  it('a scoring request with apostrophes, dates and "order": "desc" passes every location', async () => {
    const init: PolicyRequestInit = {
      path: '/business/score/v2/directors',
      query: 'name=O%27Brien&from=2024-05-01&sort=-created&q=Select+a+plan',
      headers: { ...JSON_HEADERS, 'x-note': 'update my profile' },
      body: [JSON.stringify({ director: "Siobhán O'Brien", email: 'sob@example.ie', order: 'desc', site: 'https://example.com/a?b=c' })],
    };
    expect(await detailOf(compile({ apply_to: { headers: ['X-Note'] } }), init)).toBeUndefined();
  });
});

describe('regex-protection: the path', () => {
  it('tests the decoded path', async () => {
    expect(await detailOf(compile(), { path: "/business/score/v2/directors/1' union select password from users--" })).toBe(
      'pattern sql-injection matched the path',
    );
  });

  it('skips it with path: false', async () => {
    expect(await detailOf(compile({ apply_to: { path: false } }), { path: '/x/<script>' })).toBeUndefined();
  });
});

describe('regex-protection: the query', () => {
  it.each([
    ['q=%27%20or%201%3D1%20--', 'pattern sql-injection matched query parameter q'],
    ['page=2&q=%3Cscript%3Ealert(1)%3C/script%3E', 'pattern javascript matched query parameter q'],
    ['%3Cscript%3E=1', 'pattern javascript matched a query parameter name'],
  ])('%s is refused after decoding', async (query, detail) => {
    expect(await detailOf(compile(), { query })).toBe(detail);
  });

  it('skips it with query: false', async () => {
    expect(await detailOf(compile({ apply_to: { query: false } }), { query: 'q=%3Cscript%3E' })).toBeUndefined();
  });
});

describe('regex-protection: headers, only those named', () => {
  const check = compile({ apply_to: { headers: ['X-Customer-Reference'] } });

  it('tests a named header, matched without regard to case', async () => {
    expect(await detailOf(check, { headers: { 'X-Customer-Reference': SQL } })).toBe('pattern sql-injection matched header x-customer-reference');
  });

  it('leaves other headers alone', async () => {
    expect(await detailOf(check, { headers: { 'User-Agent': SQL, Referer: '<script>' } })).toBeUndefined();
  });

  it('tests each value of a header sent more than once', async () => {
    const request = policyRequest({ headers: { 'x-customer-reference': 'ACME-1' } });
    request.req.headersDistinct['x-customer-reference'] = ['ACME-1', '<!--#exec cmd="id" -->'];
    expect((await check(request))?.detail).toBe('pattern server-side-include matched header x-customer-reference');
  });
});

describe('regex-protection: operator patterns', () => {
  const patterns = [
    { name: 'internal-host', pattern: '\\bcorp\\.internal\\b' },
    { name: 'exact-TOKEN', pattern: 'TOKEN-[0-9]+', case_sensitive: true },
  ];
  const check = compile({ builtin: [], patterns });

  it.each([
    ['q=API.CORP.INTERNAL', 'pattern internal-host matched query parameter q'],
    ['q=TOKEN-42', 'pattern exact-TOKEN matched query parameter q'],
    ['q=token-42', undefined],
    ['q=%27%20or%201%3D1', undefined],
  ])('%s', async (query, detail) => {
    expect(await detailOf(check, { query })).toBe(detail);
  });

  it('runs after the shipped patterns, which are named first when both match', async () => {
    const both = compile({ patterns: [{ name: 'any-quote', pattern: "'" }] });
    expect(await detailOf(both, { query: `q=${encodeURIComponent(SQL)}` })).toBe('pattern sql-injection matched query parameter q');
    expect(await detailOf(both, { query: 'q=O%27Brien' })).toBe('pattern any-quote matched query parameter q');
  });

  it('cannot stall the gateway: the catastrophic (a+)+$ returns on a long value', async () => {
    const classic = compile({ builtin: [], patterns: [{ name: 'classic', pattern: '(a+)+$' }] });
    expect(await detailOf(classic, { query: `q=${'a'.repeat(100_000)}!` })).toBeUndefined();
  });
});

describe('regex-protection: the detail names where, never what', () => {
  const SECRET = 'hunter2-s3cr3t';
  const hostile = `${SECRET}' or 1=1 --`;

  it.each<[string, PolicyRequestInit]>([
    ['path', { path: `/a/${hostile}` }],
    ['query value', { query: `q=${encodeURIComponent(hostile)}` }],
    ['query name', { query: `${encodeURIComponent(hostile)}=1` }],
    ['header', { headers: { 'x-ref': hostile } }],
    ['body value', jsonBody({ q: hostile })],
    ['body key', jsonBody({ [hostile]: 1 })],
    ['raw body', { headers: JSON_HEADERS, body: [`{"q": "${hostile}`] }],
  ])('%s', async (_, init) => {
    const detail = await detailOf(compile({ apply_to: { headers: ['x-ref'] } }), init);
    expect(detail).toMatch(/^pattern sql-injection matched /);
    expect(detail).not.toContain(SECRET);
  });
});

describe('regex-protection: query_params, named parameters only', () => {
  const guard = compile({ builtin: [], patterns: [{ name: 'drop', pattern: 'drop' }], apply_to: { path: false, query: false, query_params: ['q'], json_body: 'none' } });

  it('tests every value of a named parameter, decoded', async () => {
    expect(await detailOf(guard, { query: 'q=fine&q=%64rop' })).toBe('pattern drop matched query parameter q');
  });

  it.each([
    ['another parameter', 'other=drop'],
    ['the name of a parameter', 'drop=1'],
    ['a name in other letters', 'Q=drop'],
    ['no query at all', ''],
  ])('leaves %s alone', async (_case, query) => {
    expect(await detailOf(guard, { query })).toBeUndefined();
  });

  it('is refused at load when nothing else is tested and the list is empty', () => {
    const parsed = regexProtection.schema.safeParse({ name: 'g', kind: 'regex-protection', apply_to: { path: false, query: false, query_params: [], json_body: 'none' } });
    expect(parsed.success).toBe(false);
  });
});

describe('regex-protection: json_text, a selected node as one text', () => {
  const guard = (pattern: string, selectors: string[] = ['$.a']) =>
    compile({ builtin: [], patterns: [{ name: 'p', pattern, case_sensitive: true }], apply_to: { path: false, query: false, json_body: selectors, json_text: true } });

  it.each([
    ['an object, as its compact JSON', { a: { role: 'admin' } }, '"role":"admin"', '$.a'],
    ['an array', { a: [1, 2] }, '^\\[1,2\\]$', '$.a'],
    ['a number', { a: 9999 }, '^9999$', '$.a'],
    ['true', { a: true }, '^true$', '$.a'],
    ['null', { a: null }, '^null$', '$.a'],
    ['a string, as its value (unquoted)', { a: 'x"y' }, '^x"y$', '$.a'],
  ])('tests %s', async (_case, body, pattern, selector) => {
    expect(await detailOf(guard(pattern, [selector]), jsonBody(body))).toBe('pattern p matched body $.a');
  });

  it('without json_text, a number and the structure are never tested', async () => {
    const plain = compile({ builtin: [], patterns: [{ name: 'p', pattern: '9999|"role"' }], apply_to: { path: false, query: false, json_body: ['$.a'] } });
    expect(await detailOf(plain, jsonBody({ a: { role: 9999 } }))).toBeUndefined();
  });

  it('is refused at load with json_body: none, where it would mean nothing', () => {
    const parsed = regexProtection.schema.safeParse({ name: 'g', kind: 'regex-protection', apply_to: { json_body: 'none', json_text: true } });
    expect(parsed.success).toBe(false);
  });

  it('refuses a body nested too deep to be written out, instead of letting it through untested', async () => {
    const deep = `{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const detail = await detailOf(guard('never'), { headers: JSON_HEADERS, body: [deep] });
    expect(detail ?? 'passed').toMatch(/nested too deep|passed/);
  });
});
