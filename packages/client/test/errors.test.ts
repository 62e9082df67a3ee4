import { describe, expect, it } from 'vitest';
import { isRefreshTokenGone, isTransient, mayHaveRotated, TokenGatewayError, TokenRequestError, type TokenGatewayErrorInit } from '../src/errors.js';

const gatewayError = (init: Partial<TokenGatewayErrorInit> = {}) =>
  new TokenGatewayError({ status: 401, errorCode: 'INVALID_CLIENT_CREDENTIALS', message: 'Invalid client credentials', requestId: 'req-1', ...init });

describe('TokenGatewayError', () => {
  it('carries the envelope as stable fields: status, errorCode, message, requestId, retryAfter, oauthError', () => {
    const message = 'Access to the requested resource is not allowed';
    const error = gatewayError({ errorCode: 'SPIKE_ARREST', message, retryAfter: 3, oauthError: 'access_denied' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('TokenGatewayError');
    expect(error).toMatchObject({ status: 401, errorCode: 'SPIKE_ARREST', message, requestId: 'req-1', retryAfter: 3, oauthError: 'access_denied' });
  });

  it('leaves retryAfter and oauthError undefined when the gateway did not send them', () => {
    expect(gatewayError()).toMatchObject({ retryAfter: undefined, oauthError: undefined });
  });
});

describe('TokenRequestError', () => {
  it('keeps the status of a response that was not the gateway envelope, and the underlying cause', () => {
    const cause = new TypeError('fetch failed');
    const error = new TokenRequestError('/oauth2/v1/token could not be reached', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('TokenRequestError');
    expect(error).toMatchObject({ message: '/oauth2/v1/token could not be reached', status: undefined, cause });
    expect(new TokenRequestError('bad answer', { status: 502 }).status).toBe(502);
  });
});

describe('isRefreshTokenGone: only the INVALID_REFRESH_TOKEN row sends the client back to the password grant', () => {
  it.each([
    ['400 INVALID_REFRESH_TOKEN', true, gatewayError({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN', oauthError: 'invalid_grant' })],
    ['400 invalid_grant under another code (RFC 6749 5.2, as another server may send it)', true, gatewayError({ status: 400, errorCode: 'GRANT_EXPIRED', oauthError: 'invalid_grant' })],
    ['400 INVALID_REFRESH_TOKEN without an OAuth code', true, gatewayError({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' })],
    ['401 INVALID_CLIENT_CREDENTIALS', false, gatewayError()],
    ['400 REFRESH_TOKEN_REQUIRED', false, gatewayError({ status: 400, errorCode: 'REFRESH_TOKEN_REQUIRED', oauthError: 'invalid_request' })],
    ['503 SERVICE_UNAVAILABLE', false, gatewayError({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' })],
    ['no answer', false, new TokenRequestError('unreachable')],
    ['anything else', false, new Error('INVALID_REFRESH_TOKEN')],
  ])('%s: %s', (_, gone, error) => {
    expect(isRefreshTokenGone(error)).toBe(gone);
  });
});

describe('isTransient: worth trying again later with the same credentials', () => {
  it.each([
    ['no answer at all', true, new TokenRequestError('unreachable')],
    ['an HTML 502 from a balancer', true, new TokenRequestError('bad answer', { status: 502 })],
    ['a 200 that is not a token response', false, new TokenRequestError('bad answer', { status: 200 })],
    ['429 (not a gateway row; a proxy in front of it may send one)', true, gatewayError({ status: 429, errorCode: 'TOO_MANY_REQUESTS' })],
    ['503 SERVICE_UNAVAILABLE', true, gatewayError({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' })],
    ['a 401 with Retry-After (spike arrest)', true, gatewayError({ errorCode: 'SPIKE_ARREST', retryAfter: 1 })],
    ['401 INVALID_CLIENT_CREDENTIALS', false, gatewayError()],
    ['400 INVALID_REFRESH_TOKEN', false, gatewayError({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' })],
    ['an error of another kind', false, new TypeError('bug')],
  ])('%s: %s', (_, transient, error) => {
    expect(isTransient(error)).toBe(transient);
  });
});

describe('mayHaveRotated: a refresh that may have rotated the token at the gateway without its answer arriving', () => {
  it.each([
    ['no answer at all (a timeout, a reset connection)', true, new TokenRequestError('unreachable')],
    ["a balancer's 504 page", true, new TokenRequestError('bad answer', { status: 504 })],
    ["the gateway's 503 SERVICE_UNAVAILABLE (a store command that timed out may still have run)", true, gatewayError({ status: 503, errorCode: 'SERVICE_UNAVAILABLE', retryAfter: 1 })],
    ['500 INTERNAL_ERROR', true, gatewayError({ status: 500, errorCode: 'INTERNAL_ERROR' })],
    ['429: refused before anything was done', false, gatewayError({ status: 429, errorCode: 'TOO_MANY_REQUESTS' })],
    ['400 INVALID_REFRESH_TOKEN: an answer, and a final one', false, gatewayError({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' })],
    ['401 with Retry-After (spike arrest, refused before the grant ran)', false, gatewayError({ errorCode: 'SPIKE_ARREST', retryAfter: 1 })],
    ['a 200 that is not a token response', false, new TokenRequestError('bad answer', { status: 200 })],
    ['an error of another kind', false, new TypeError('bug')],
  ])('%s: %s', (_, retried, error) => {
    expect(mayHaveRotated(error)).toBe(retried);
  });
});
