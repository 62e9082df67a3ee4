import { STATUS_CODES } from 'node:http';
import { describe, expect, it } from 'vitest';
import { catalogue, type ErrorCode } from '../../src/errors/catalogue.js';

// SPEC section 7, copied row by row: the contract the catalogue must keep.
const SPEC_ROWS: Array<[string, number, string, string, ErrorCode[]]> = [
  ['Expired access token', 401, 'Unauthorized', 'Access token is Invalid', ['ACCESS_TOKEN_INVALID']],
  ['client_id and client_secret missing', 400, 'Bad Request', "The 'client_id' and 'client_secret' attributes are required", ['CLIENT_CREDENTIALS_REQUIRED']],
  ['method other than POST', 405, 'Method Not Allowed', 'The requested method is not allowed', ['METHOD_NOT_ALLOWED']],
  ['Content-Type missing or not JSON', 415, 'Unsupported Media Type', 'Content-Type header is unsupported', ['UNSUPPORTED_MEDIA_TYPE']],
  ['username or password missing', 400, 'Bad Request', "The 'username' and 'password' attributes are required", ['USER_CREDENTIALS_REQUIRED']],
  ['username/password mismatch', 401, 'Unauthorized', 'Access is denied due to invalid username or password', ['INVALID_USER_CREDENTIALS']],
  ['incorrect client_id or client_secret', 401, 'Unauthorized', 'Access is denied due to invalid client id or client secret', ['INVALID_CLIENT_CREDENTIALS']],
  [
    'account not in active status',
    401,
    'Unauthorized',
    'Your account is in invalid state. For further assistance, please contact API support',
    ['USER_ACCOUNT_INVALID_STATE', 'CLIENT_ACCOUNT_INVALID_STATE'],
  ],
  ['regex, JSON threat or spike arrest', 401, 'Unauthorized', 'Access to the requested resource is not allowed', ['REGEX_THREAT', 'JSON_THREAT', 'SPIKE_ARREST']],
  ['default authentication failure', 401, 'Unauthorized', 'Access to the requested resource is not allowed', ['AUTHENTICATION_REQUIRED', 'LOGIN_LOCKED']],
  ['IP range or time-of-day', 403, 'Forbidden', 'Access to the requested resource is Forbidden', ['IP_RANGE_FORBIDDEN', 'TIME_OF_DAY_FORBIDDEN']],
  ['internal error', 500, 'Internal Server Error', 'Internal Server Error. If problems persist, please contact API support', ['INTERNAL_ERROR']],
];

describe('error catalogue', () => {
  it.each(SPEC_ROWS)('keeps the spec row "%s" exactly', (_scenario, status, errorType, message, codes) => {
    for (const code of codes) {
      expect(catalogue[code]).toMatchObject({ status, errorType, message, fromSpec: true });
    }
  });

  it('has exactly the spec rows marked as from the spec', () => {
    const specCodes = SPEC_ROWS.flatMap((row) => row[4]).sort();
    const marked = (Object.keys(catalogue) as ErrorCode[]).filter((code) => catalogue[code].fromSpec).sort();
    expect(marked).toEqual(specCodes);
  });

  it.each(Object.entries(catalogue))('%s uses its status code and HTTP reason phrase', (_code, entry) => {
    expect(entry.status).toBeGreaterThanOrEqual(400);
    expect(entry.errorType).toBe(STATUS_CODES[entry.status]);
    expect(entry.message.length).toBeGreaterThan(0);
    expect(entry.oauthError).toMatch(/^[a-z_]+$/);
  });

  it('writes every errorCode as a stable SCREAMING_SNAKE identifier', () => {
    for (const code of Object.keys(catalogue)) expect(code).toMatch(/^[A-Z][A-Z_]+$/);
  });
});
