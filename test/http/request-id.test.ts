import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { requestIdOf } from '../../src/http/request-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const withId = (id: string | string[] | undefined) => ({ headers: id === undefined ? {} : { 'x-request-id': id } }) as unknown as IncomingMessage;

describe('the request id', () => {
  it.each(['abcd1234', 'lb-7f3a.2026:11:21_x'.replace('_', '-'), 'a'.repeat(128), '550e8400-e29b-41d4-a716-446655440000'])('keeps an id from the edge: %s', (id) => {
    expect(requestIdOf(withId(id))).toBe(id);
  });

  it.each([
    ['absent', undefined],
    ['too short', 'abc'],
    ['too long', 'a'.repeat(129)],
    ['with a space', 'abcd 1234'],
    ['with a newline (log injection)', 'abcd1234\nlevel=error'],
    ['repeated', ['abcd1234', 'efgh5678']],
  ])('replaces one that is %s with a new UUID', (_case, id) => {
    expect(requestIdOf(withId(id))).toMatch(UUID);
  });
});
