import { describe, expect, it } from 'vitest';
import { AdminRefusal, answering, boundedCount, isoTime, optionalBoolean, optionalName, refuseUnknownFields } from '../../src/admin/input.js';
import { GatewayError } from '../../src/errors/gateway-error.js';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof AdminRefusal) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error('not refused');
};

describe('admin operation input', () => {
  describe('answering', () => {
    it('passes a result through', async () => {
      expect(await answering(async () => ({ status: 200, body: { ok: true } }))).toEqual({ status: 200, body: { ok: true } });
    });

    it('answers a refusal with its status and sentence', async () => {
      expect(await answering(async () => Promise.reject(new AdminRefusal(409, 'busy')))).toEqual({ status: 409, body: { error: 'busy' } });
    });

    it('answers a store that cannot serve now with 503, saying why', async () => {
      const unavailable = new GatewayError('SERVICE_UNAVAILABLE', { detail: 'redis is reconnecting' });
      expect(await answering(async () => Promise.reject(unavailable))).toEqual({
        status: 503,
        body: { error: 'not possible right now (redis is reconnecting); try again' },
      });
    });

    it('leaves anything else (a bug) to the listener', async () => {
      const bug = new TypeError('x is undefined');
      await expect(answering(async () => Promise.reject(bug))).rejects.toBe(bug);
    });
  });

  it('refuses a misspelt field instead of ignoring it', () => {
    expect(refusal(() => refuseUnknownFields({ user: 'alice', extra: 1 }, ['username', 'client_id']))).toEqual({
      status: 400,
      message: 'unknown field "user", "extra"; expected "username", "client_id"',
    });
    expect(() => refuseUnknownFields({ username: 'alice' }, ['username', 'client_id'])).not.toThrow();
  });

  it.each([
    [{}, undefined],
    [{ username: 'alice' }, 'alice'],
  ])('optionalName reads %j as %j', (input, name) => {
    expect(optionalName(input, 'username')).toBe(name);
  });

  it.each([[''], ['   '], [42], [null], [['alice']]])('optionalName refuses %j', (value) => {
    expect(refusal(() => optionalName({ username: value }, 'username'))).toEqual({ status: 400, message: '"username" must be a non-empty string' });
  });

  it('optionalBoolean: absent is false, a boolean is itself, anything else is refused', () => {
    expect(optionalBoolean({}, 'dropPrevious')).toBe(false);
    expect(optionalBoolean({ dropPrevious: true }, 'dropPrevious')).toBe(true);
    expect(refusal(() => optionalBoolean({ dropPrevious: 'yes' }, 'dropPrevious'))).toEqual({ status: 400, message: '"dropPrevious" must be true or false' });
  });

  it.each([
    [undefined, 100],
    ['1', 1],
    ['250', 250],
    [1000, 1000],
  ])('boundedCount reads %j as %d', (value, count) => {
    expect(boundedCount(value === undefined ? {} : { limit: value }, 'limit', { fallback: 100, max: 1000 })).toBe(count);
  });

  it.each([['0'], [0], ['1001'], ['-1'], ['1.5'], [2.5], ['ten'], [true], ['9999999999']])('boundedCount refuses %j', (value) => {
    expect(refusal(() => boundedCount({ limit: value }, 'limit', { fallback: 100, max: 1000 }))).toEqual({
      status: 400,
      message: '"limit" must be a whole number from 1 to 1000',
    });
  });

  it('writes times as ISO 8601 in UTC', () => {
    expect(isoTime(Date.parse('2026-11-21T12:00:00Z'))).toBe('2026-11-21T12:00:00.000Z');
  });
});
