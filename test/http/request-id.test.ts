import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestIdOf } from '../../src/http/request-id.js';
import { eventually } from '../helpers/eventually.js';
import { bootGateway, callProtected, issueTokens, passwordGrant, type TestGateway } from '../helpers/gateway.js';

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

describe('X-Request-Id on every answer of the client listener', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  // Each kind of answer writes its own head (an endpoint, a refusal, a relayed upstream head): each must carry the id.
  it.each<[string, (url: string, token: string) => Promise<Response>, number]>([
    ['a probe', (url) => fetch(`${url}/livez`), 200],
    ['a token issued', (url) => passwordGrant(url), 200],
    ['a token refused', (url) => passwordGrant(url, { password: 'wrong' }), 401],
    ['an unknown path', (url) => fetch(`${url}/nowhere`), 404],
    ['a protected call without a token', (url) => callProtected(url, undefined), 401],
    ['a relayed upstream answer', (url, token) => callProtected(url, token), 200],
  ])('%s', async (_kind, call, status) => {
    const token = (await issueTokens(tg.url)).access_token;
    const response = await call(tg.url, token);
    await response.arrayBuffer();
    expect(response.status).toBe(status);
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(UUID);
    await eventually(() => tg.logs.some((line) => line.msg === 'request' && line.requestId === requestId), { what: `the access line of ${requestId}` });
  });
});

describe('a generated request id', () => {
  it('is a version 4 UUID, different every time', () => {
    const ids = Array.from({ length: 1000 }, () => requestIdOf(withId(undefined)));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
