import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { FORM_MEDIA_TYPE, formAsObject, isFormContentType, isReadableForm, parseForm, singleValuedParameters } from '../../src/http/form-body.js';

/** The error code singleValuedParameters throws, or 'ok'. */
const verdictOf = (text: string): string => {
  try {
    singleValuedParameters(parseForm(text));
    return 'ok';
  } catch (error) {
    return isGatewayError(error) ? error.code : String(error);
  }
};

describe('http/form-body: RFC 6749 appendix B bodies', () => {
  it('names the media type once: application/x-www-form-urlencoded', () => {
    expect(FORM_MEDIA_TYPE).toBe('application/x-www-form-urlencoded');
  });

  it.each<[string | undefined, boolean, boolean]>([
    // [Content-Type, a form, a form we read (UTF-8)]
    ['application/x-www-form-urlencoded', true, true],
    ['Application/X-WWW-Form-URLEncoded', true, true],
    ['application/x-www-form-urlencoded; charset=UTF-8', true, true],
    ['application/x-www-form-urlencoded;charset=utf8', true, true],
    ['application/x-www-form-urlencoded ; charset="utf-8"', true, true],
    ['application/x-www-form-urlencoded; charset=iso-8859-1', true, false],
    ['application/x-www-form-urlencoded; charset=windows-1252', true, false],
    ['application/x-www-form-urlencoded; charset="UTF-16"', true, false],
    ['application/json', false, false],
    ['multipart/form-data; boundary=x', false, false],
    ['application/x-www-form-urlencoded-evil', false, false],
    ['text/plain; x=application/x-www-form-urlencoded', false, false],
    ['', false, false],
    [undefined, false, false],
  ])('Content-Type %j: a form %s, readable %s', (contentType, form, readable) => {
    expect(isFormContentType(contentType)).toBe(form);
    expect(isReadableForm(contentType)).toBe(readable);
  });

  it.each<[string, Array<[string, string]>]>([
    // Decoded exactly once, as the upstream or any OAuth server decodes them.
    ['a=1&b=2', [['a', '1'], ['b', '2']]],
    ['scope=read+write', [['scope', 'read write']]],
    ['p=a%2Bb', [['p', 'a+b']]],
    ['p=%25', [['p', '%']]],
    ['p=%252B', [['p', '%2B']]],
    ['p=%C3%A9t%C3%A9', [['p', 'été']]],
    ['p%5Bx%5D=1', [['p[x]', '1']]],
    ['a%3Db=c%26d', [['a=b', 'c&d']]],
    // Invalid escapes are kept as written, never guessed at or refused.
    ['p=%zz', [['p', '%zz']]],
    ['p=%', [['p', '%']]],
    ['p=%4', [['p', '%4']]],
    // Percent-escapes that are not UTF-8 decode to U+FFFD: nothing else can be read from them.
    ['p=%FF', [['p', '\uFFFD']]],
    ['p=%E9t%E9', [['p', '\uFFFDt\uFFFD']]],
    ['p=%C3', [['p', '\uFFFD']]],
    // A NUL is a value like any other: what a policy scans, not a string terminator.
    ['p=a%00b', [['p', 'a\u0000b']]],
    // Empty names, empty values, stray separators.
    ['flag', [['flag', '']]],
    ['a=', [['a', '']]],
    ['=v', [['', 'v']]],
    ['a=1&&b=2&', [['a', '1'], ['b', '2']]],
    ['a=x=y', [['a', 'x=y']]],
    ['', []],
    // A leading "?" is not part of a body's first name (WHATWG strips it, as it does for a query).
    ['?a=1', [['a', '1']]],
  ])('parses %j as %j', (text, pairs) => {
    expect([...parseForm(text)]).toEqual(pairs);
  });

  it('keeps every value of a repeated name, in order (parseForm never throws)', () => {
    expect(parseForm('token=a&token=b&token=c').getAll('token')).toEqual(['a', 'b', 'c']);
  });

  it.each<[string, string]>([
    ['grant_type=password&username=alice', 'ok'],
    ['token=a&token=b', 'MALFORMED_REQUEST'],
    ['token=a&token=a', 'MALFORMED_REQUEST'],
    ['token=&token=b', 'MALFORMED_REQUEST'],
    // Names are compared after decoding: a spelling of the same name is the same name.
    ['token=a&%74oken=b', 'MALFORMED_REQUEST'],
    ['client+id=a&client%20id=b', 'MALFORMED_REQUEST'],
    // Names differ by case: two names, as RFC 6749 says parameters are case-sensitive.
    ['token=a&Token=b', 'ok'],
  ])('singleValuedParameters(%j): %s', (text, verdict) => {
    expect(verdictOf(text)).toBe(verdict);
  });

  it('names a repeated parameter in the log detail, shortened to 40 characters, never to the client', () => {
    const long = 'n'.repeat(100);
    const thrown = (() => {
      try {
        singleValuedParameters(parseForm(`${long}=1&${long}=2`));
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(isGatewayError(thrown) && thrown.detail).toBe(`form parameter ${'n'.repeat(40)}… sent more than once`);
    expect(isGatewayError(thrown) && thrown.entry.message).not.toContain('nnnn');
  });

  it('returns each name once, frozen, with no prototype a name could reach', () => {
    const parameters = singleValuedParameters(parseForm('__proto__=x&constructor=y&token=t'));
    expect(Object.isFrozen(parameters)).toBe(true);
    expect(Object.getPrototypeOf(parameters)).toBeNull();
    expect(Object.entries(parameters)).toEqual([['__proto__', 'x'], ['constructor', 'y'], ['token', 't']]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each<[string, Array<[string, string | string[]]>]>([
    // What the body policies read: a name to its value, a repeated name to the list of its values.
    ['username=alice&password=x', [['username', 'alice'], ['password', 'x']]],
    ['scope=a&scope=b', [['scope', ['a', 'b']]]],
    ['scope=a&other=1&scope=b&scope=c', [['scope', ['a', 'b', 'c']], ['other', '1']]],
    ['a=%3Cscript%3E', [['a', '<script>']]],
    ['__proto__=polluted&__proto__=twice', [['__proto__', ['polluted', 'twice']]]],
    ['', []],
  ])('formAsObject(%j) has the members %j, on no prototype', (text, members) => {
    const result = formAsObject(parseForm(text));
    expect(Object.getPrototypeOf(result)).toBeNull();
    expect(Object.entries(result)).toEqual(members);
  });
});
