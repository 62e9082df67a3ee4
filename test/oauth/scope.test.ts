import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { assertNoScopeRequested } from '../../src/oauth/scope.js';
import type { OAuthParameters } from '../../src/oauth/request-parameters.js';

const request = (format: OAuthParameters['format'], body: Record<string, unknown> | undefined): OAuthParameters => ({ format, body, get: () => undefined });

/** 'granted', or the error code the request is refused with. */
const verdictOf = (parameters: OAuthParameters): string => {
  try {
    assertNoScopeRequested(parameters);
    return 'granted';
  } catch (error) {
    return isGatewayError(error) ? `${error.code} ${error.status}` : String(error);
  }
};

describe('oauth/scope: RFC 6749 3.3, a service that defines no scopes', () => {
  it.each<[string, unknown, string]>([
    // [what the form asks, its scope member, the verdict]
    ['no scope', undefined, 'granted'],
    ['a blank scope', '', 'granted'],
    ['a scope of spaces and tabs', ' \t ', 'granted'],
    ['one scope', 'openid', 'INVALID_SCOPE 400'],
    ['several scopes', 'read write', 'INVALID_SCOPE 400'],
    ['a scope padded with spaces', '  read  ', 'INVALID_SCOPE 400'],
    ['a scope of one character', 'x', 'INVALID_SCOPE 400'],
    ['a scope that names offline access', 'offline_access', 'INVALID_SCOPE 400'],
  ])('in a form, %s: %s', (_what, scope, verdict) => {
    expect(verdictOf(request('form', scope === undefined ? {} : { scope }))).toBe(verdict);
  });

  it.each<[string, OAuthParameters['format'], Record<string, unknown> | undefined]>([
    // The spec's clients send other members in a JSON body, and always have: they are ignored, scope included.
    ['a JSON body with a scope member', 'json', { username: 'alice', scope: 'openid' }],
    ['a JSON body with a scope list', 'json', { scope: ['read', 'write'] }],
    ['no body at all', 'none', undefined],
  ])('ignores %s', (_what, format, body) => {
    expect(verdictOf(request(format, body))).toBe('granted');
  });

  it('answers RFC 6749 5.2 invalid_scope, detail for the log only', () => {
    try {
      assertNoScopeRequested(request('form', { scope: 'openid' }));
      expect.fail('a scope was granted');
    } catch (error) {
      expect(isGatewayError(error) && { oauth: error.entry.oauthError, detail: error.detail }).toEqual({ oauth: 'invalid_scope', detail: 'a scope was requested; this service defines none' });
    }
  });
});
