import { describe, expect, it } from 'vitest';
import type { CompileDeps, PolicyCheck } from '../../../src/policies/policy.js';
import { regexProtection } from '../../../src/policies/regex-protection/check.js';
import { ManualClock } from '../../helpers/clock.js';
import { policyRequest, type PolicyRequestInit } from '../../helpers/policy-request.js';

const deps: CompileDeps = {
  clock: new ManualClock(),
  rateLimiter: () => {
    throw new Error('regex-protection keeps no counters');
  },
};

const compile = (settings: Record<string, unknown> = {}): PolicyCheck =>
  regexProtection.compile(regexProtection.schema.parse({ name: 'injection-guard', kind: 'regex-protection', ...settings }), deps);

const FORM = 'application/x-www-form-urlencoded';
const form = (text: string, contentType = FORM, extra: Record<string, string> = {}): PolicyRequestInit => ({
  headers: { 'content-type': contentType, ...extra },
  body: [text],
});

async function detailOf(check: PolicyCheck, init: PolicyRequestInit): Promise<string | undefined> {
  const verdict = await check(policyRequest(init));
  if (verdict) expect(verdict.code).toBe('REGEX_THREAT');
  return verdict?.detail;
}

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
