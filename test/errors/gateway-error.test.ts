import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../src/errors/catalogue.js';
import { GatewayError, isGatewayError } from '../../src/errors/gateway-error.js';

describe('GatewayError, the one error type', () => {
  it('takes its status and public message from the catalogue row of its code', () => {
    const error = new GatewayError('INVALID_USER_CREDENTIALS');
    expect(error.code).toBe('INVALID_USER_CREDENTIALS');
    expect(error.status).toBe(catalogue.INVALID_USER_CREDENTIALS.status);
    expect(error.entry).toBe(catalogue.INVALID_USER_CREDENTIALS);
    expect(error.message).toBe(catalogue.INVALID_USER_CREDENTIALS.message);
    expect(error.headers).toEqual({});
    expect(error.detail).toBeUndefined();
  });

  it('keeps the detail (for logs), headers, cause and the refusing policy', () => {
    const cause = new Error('ECONNRESET');
    const error = new GatewayError('SERVICE_UNAVAILABLE', { detail: 'redis is down', headers: { 'Retry-After': '1' }, cause, policy: 'spike', policyKind: 'spike-arrest' });
    expect(error).toMatchObject({ detail: 'redis is down', message: 'redis is down', headers: { 'Retry-After': '1' }, policy: 'spike', policyKind: 'spike-arrest' });
    expect(error.cause).toBe(cause);
  });

  it('can be logged as `err` by pino (the frozen catalogue row is not one of its own fields)', () => {
    const lines: string[] = [];
    const logger = pino({}, { write: (line: string) => void lines.push(line) });
    expect(() => logger.error({ err: new GatewayError('SERVICE_UNAVAILABLE', { detail: 'x' }) }, 'failed')).not.toThrow();
    expect(JSON.parse(lines[0]!)).toMatchObject({ err: { type: 'GatewayError', message: 'x', code: 'SERVICE_UNAVAILABLE' } });
  });

  it('is recognised by isGatewayError, and nothing else is', () => {
    expect(isGatewayError(new GatewayError('SERVICE_UNAVAILABLE'))).toBe(true);
    expect(isGatewayError(Object.assign(new Error('x'), { code: 'SERVICE_UNAVAILABLE' }))).toBe(false);
    expect(isGatewayError(undefined)).toBe(false);
  });
});
