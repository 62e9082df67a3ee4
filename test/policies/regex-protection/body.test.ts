import { describe, expect, it } from 'vitest';
import type { PolicyCheck } from '../../../src/policies/policy.js';
import { policyRequest, type PolicyRequestInit } from '../../helpers/policy-request.js';
import { compile, detailOf, JSON_HEADERS, jsonBody, SQL } from './compile.js';

/** The body rules of a regex-protection policy (body.ts), through the check that runs them. */

describe('regex-protection: JSON bodies (body.ts)', () => {
  const body = { company: { name: 'Acme', notes: SQL }, directors: [{ name: 'Ann' }, { name: '<script>x</script>' }] };

  it('json_body: all tests every string value, naming where', async () => {
    expect(await detailOf(compile(), jsonBody({ directors: [{ name: 'Ann' }, { name: SQL }] }))).toBe(
      'pattern sql-injection matched body $.directors[1].name',
    );
  });

  it('json_body: all tests every key, naming the object that holds it, not the key', async () => {
    expect(await detailOf(compile(), jsonBody({ filters: { [SQL]: 1 } }))).toBe('pattern sql-injection matched a key in body $.filters');
  });

  it('tests a body that is a bare JSON string', async () => {
    expect(await detailOf(compile(), jsonBody(SQL))).toBe('pattern sql-injection matched body $');
  });

  it('json_body: none never reads the body', async () => {
    const request = policyRequest(jsonBody(body));
    expect(await compile({ apply_to: { json_body: 'none' } })(request)).toBeUndefined();
    expect(request.chunksRead()).toBe(0);
  });

  it.each<[string[], string | undefined]>([
    [['$.company.name'], undefined],
    [['$.company'], 'pattern sql-injection matched body $.company.notes'],
    [['$.directors[0]', "$['directors'][1]"], 'pattern javascript matched body $.directors[1].name'],
    [['$.directors[*].name'], 'pattern javascript matched body $.directors[1].name'],
    [['$.*.notes'], 'pattern sql-injection matched body $.company.notes'],
    [['$.missing[3].path'], undefined],
  ])('selectors %j test only what they select, with everything beneath', async (selectors, detail) => {
    expect(await detailOf(compile({ apply_to: { json_body: selectors } }), jsonBody(body))).toBe(detail);
  });

  it('a selected object has its keys tested too', async () => {
    const check = compile({ apply_to: { json_body: ['$.filters'] } });
    expect(await detailOf(check, jsonBody({ filters: { [SQL]: 1 } }))).toBe('pattern sql-injection matched a key in body $.filters');
  });

  it('sees escapes decoded: \\u0027 is a quote', async () => {
    expect(await detailOf(compile(), { headers: JSON_HEADERS, body: ['{"q": "\\u0027 or 1=1 --"}'] })).toBe('pattern sql-injection matched body $.q');
  });

  it('tests a body that is not valid JSON as one raw string, so selectors cannot be dodged', async () => {
    const check = compile({ apply_to: { json_body: ['$.safe'] } });
    expect(await detailOf(check, { headers: JSON_HEADERS, body: [`{"safe": "x", "q": "${SQL}"`] })).toBe(
      'pattern sql-injection matched the body (not valid JSON, tested as text)',
    );
  });

  it.each([[[]], [['']], [['  \n']]])('lets an empty body %j pass', async (chunks) => {
    expect(await detailOf(compile(), { headers: JSON_HEADERS, body: chunks })).toBeUndefined();
  });

  it.each(['application/json; charset=utf-8', 'application/merge-patch+json', 'application/vnd.api+json'])('reads a %s body', async (type) => {
    expect(await detailOf(compile(), { headers: { 'content-type': type }, body: [JSON.stringify({ q: SQL })] })).toBe(
      'pattern sql-injection matched body $.q',
    );
  });

  // Forms are read as JSON is (below).
  it.each([undefined, 'text/plain', 'multipart/form-data; boundary=x'])('does not read a %s body', async (type) => {
    const request = policyRequest({ headers: type ? { 'content-type': type } : {}, body: [JSON.stringify({ q: SQL })] });
    expect(await compile()(request)).toBeUndefined();
    expect(request.chunksRead()).toBe(0);
  });

  it('refuses a content-encoded JSON body it cannot test, rather than pass it unseen', async () => {
    const init = { headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' }, body: ['\u001f\u008b'] };
    expect(await detailOf(compile(), init)).toBe('a content-encoded JSON body cannot be tested');
  });

  it('does not read the body when the path, query or headers already refuse', async () => {
    const request = policyRequest({ ...jsonBody(body), query: 'q=%3Cscript%3E' });
    expect((await compile()(request))?.detail).toBe('pattern javascript matched query parameter q');
    expect(request.chunksRead()).toBe(0);
  });

  it('walks a body nested 100,000 deep without overflowing the stack, shortening the path it logs', async () => {
    const depth = 100_000;
    const hostile = `${'{"a":['.repeat(depth)}"${SQL}"${']}'.repeat(depth)}`;
    const detail = await detailOf(compile(), { headers: JSON_HEADERS, body: [hostile], bodyLimit: 2 * 1024 * 1024 });
    expect(detail).toMatch(/^pattern sql-injection matched body \$\.a\[0\]\.a\[0\].*…$/);
    expect(detail?.length).toBeLessThan(200);
    const benign = `${'['.repeat(depth)}"O'Brien"${']'.repeat(depth)}`;
    expect(await detailOf(compile(), { headers: JSON_HEADERS, body: [benign] })).toBeUndefined();
  });
});

const FORM = 'application/x-www-form-urlencoded';
const form = (text: string, contentType = FORM, extra: Record<string, string> = {}): PolicyRequestInit => ({
  headers: { 'content-type': contentType, ...extra },
  body: [text],
});


/**
 * A form (application/x-www-form-urlencoded) is read as its JSON equivalent:
 * a form body must be no way around the policy, on the OAuth endpoints that
 * accept forms (oauth.form_encoded) or on a route.
 */
describe('regex-protection: form bodies are tested as JSON bodies are', () => {
  it('passes an ordinary RFC 6749 password grant', async () => {
    const text = 'grant_type=password&username=siobhan.obrien&password=O%27Brien+2024%21&scope=';
    expect(await detailOf(compile(), form(text))).toBeUndefined();
  });

  it.each([
    ['a value, decoded once (+ and percent-escapes)', 'grant_type=password&username=%27+or+1%3D1+--&password=x', 'pattern sql-injection matched body $.username'],
    ['a value in a charset-qualified form', 'username=a&password=%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'pattern javascript matched body $.password'],
    ['a name, tested as a JSON key is', '%3Cscript%3E=1', 'pattern javascript matched a key in body $'],
    ['the second value of a repeated name, as a list', 'scope=read&scope=%27+union+select+1--', 'pattern sql-injection matched body $.scope[1]'],
  ])('refuses %s', async (_what, text, detail) => {
    expect(await detailOf(compile(), form(text, `${FORM}; charset=UTF-8`))).toBe(detail);
  });

  it('applies json_body selectors to the form as to a JSON object', async () => {
    const check = compile({ apply_to: { json_body: ['$.username'] } });
    expect(await detailOf(check, form('username=%27+or+1%3D1+--'))).toBe('pattern sql-injection matched body $.username');
    expect(await detailOf(check, form('note=%27+or+1%3D1+--'))).toBeUndefined();
  });

  it('does not read a form with json_body: none', async () => {
    const request = policyRequest(form('username=%27+or+1%3D1+--'));
    expect(await compile({ apply_to: { json_body: 'none' } })(request)).toBeUndefined();
    expect(request.chunksRead()).toBe(0);
  });

  it.each([
    ['content-encoded', form('x', FORM, { 'content-encoding': 'gzip' }), 'a content-encoded form body cannot be tested'],
    ['declared in another charset', form('x', `${FORM}; charset=iso-8859-1`), 'a form body in a charset other than UTF-8 cannot be tested'],
    ['holding NUL bytes (UTF-16)', form('u\u0000=\u0000x'), 'a form body with NUL bytes (not UTF-8) cannot be tested'],
  ])('refuses a form %s, which it cannot test, rather than pass it unseen', async (_what, init, detail) => {
    expect(await detailOf(compile(), init)).toBe(detail);
  });

  it('passes an empty form', async () => {
    expect(await detailOf(compile(), form(''))).toBeUndefined();
  });
});
