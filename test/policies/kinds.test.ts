import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { bootGateway, errorOf, issueTokens, type TestGateway } from '../helpers/gateway.js';

// Monday 2026-11-23 09:00 in Chicago (CST, UTC-6): inside office hours.
const MONDAY_9AM_CHICAGO = Date.parse('2026-11-23T15:00:00Z');
const NOT_ALLOWED = { status: 401, message: 'Access to the requested resource is not allowed' };
const FORBIDDEN = { status: 403, message: 'Access to the requested resource is Forbidden' };

const POLICIES = {
  policies: [
    { name: 'office-hours', kind: 'time-of-day', time_zone: 'America/Chicago', windows: [{ days: ['mon-fri'], from: '08:00', to: '18:00' }] },
    { name: 'injection-guard', kind: 'regex-protection', apply_to: { headers: ['x-customer-reference'] } },
    { name: 'json-guard', kind: 'json-threat', max_depth: 3, max_array_elements: 4, max_string_length: 10, max_body_size: '1kb' },
    { name: 'ten-per-second', kind: 'spike-arrest', rate: '10ps', identifier: 'client_id' },
    { name: 'bursty', kind: 'spike-arrest', rate: '60pm', burst: 2, identifier: 'header', header: 'X-Partner' },
    { name: 'two-per-ms', kind: 'spike-arrest', rate: '2000ps', identifier: 'client_id' },
  ],
};

/**
 * Every policy kind over real HTTP, on a real gateway in front of a real
 * upstream: status and message exactly as SPEC 7 gives them, and the
 * boundary of each limit (at it passes, one over fails).
 */
describe('policies over HTTP', () => {
  const clock = new ManualClock(MONDAY_9AM_CHICAGO);
  let gw: TestGateway;
  let token: string;
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${gw.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });
  const postJson = (path: string, body: string) => call(path, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  const expectRefusal = async (response: Response, expected: { status: number; message: string }, errorCode: string) => {
    const { status, errorCode: code, body } = await errorOf(response);
    expect({ status, code, message: body.errors[0]?.message }).toEqual({ status: expected.status, code: errorCode, message: expected.message });
  };

  beforeAll(async () => {
    gw = await bootGateway({
      clock,
      policies: { main: POLICIES },
      config: (upstream) => ({
        routes: [
          { path: '/hours', upstream, policies: ['office-hours'] },
          { path: '/regex', upstream, policies: ['injection-guard'] },
          { path: '/json', upstream, policies: ['json-guard', 'injection-guard'] },
          { path: '/spike', upstream, policies: ['ten-per-second'] },
          { path: '/burst', upstream, policies: ['bursty'] },
          { path: '/fast', upstream, policies: ['two-per-ms'] },
        ],
      }),
    });
    token = (await issueTokens(gw.url)).access_token;
  });
  afterAll(() => gw.close());

  describe('regex-protection', () => {
    it.each([
      ['the query', "/regex/x?name=1' OR '1'='1", {}],
      ['the path', '/regex/%3Cscript%3Ealert(1)%3C/script%3E', {}],
      ['a named header', '/regex/x', { 'x-customer-reference': '1; DROP TABLE users--' }],
    ])('refuses an injection in %s with 401', async (_where, path, headers) => {
      await expectRefusal(await call(path, { headers }), NOT_ALLOWED, 'REGEX_THREAT');
    });

    it('refuses an injection in a JSON body value and forwards a clean body intact', async () => {
      await expectRefusal(await postJson('/regex/x', JSON.stringify({ comment: '<script>steal()</script>' })), NOT_ALLOWED, 'REGEX_THREAT');
      const clean = JSON.stringify({ comment: "O'Brien wants to update his plan" });
      const response = await postJson('/regex/x', clean);
      expect(response.status).toBe(200);
      expect(gw.upstream.seen.at(-1)?.body).toBe(clean);
    });

    it.each([
      ['a UTF-16 body', Buffer.from(JSON.stringify({ c: '<script>alert(1)</script>' }), 'utf16le'), 'application/json'],
      ['a declared non-UTF-8 charset', Buffer.from('{"c":"fine"}'), 'application/json; charset=utf-16le'],
      ['a byte-order mark before escaped markup', Buffer.from('\uFEFF{"c":"\\u003cscript\\u003esteal()\\u003c/script\\u003e"}'), 'application/json'],
    ])('refuses %s rather than letting it through untested', async (_case, body, contentType) => {
      const response = await call('/regex/x', { method: 'POST', body, headers: { 'content-type': contentType } });
      await expectRefusal(response, NOT_ALLOWED, 'REGEX_THREAT');
    });

    it('does not test headers it was not told to', async () => {
      expect((await call('/regex/x', { headers: { 'x-other': "' OR 1=1 --" } })).status).toBe(200);
    });
  });

  describe('json-threat', () => {
    it.each([
      ['depth', '{"a":{"b":{"c":1}}}', '{"a":{"b":{"c":{}}}}'],
      ['array elements', '[1,2,3,4]', '[1,2,3,4,5]'],
      ['string length', '{"s":"0123456789"}', '{"s":"0123456789x"}'],
    ])('%s: at the limit passes, one over is 401', async (_limit, atLimit, overLimit) => {
      expect((await postJson('/json/x', atLimit)).status).toBe(200);
      expect(gw.upstream.seen.at(-1)?.body).toBe(atLimit);
      await expectRefusal(await postJson('/json/x', overLimit), NOT_ALLOWED, 'JSON_THREAT');
    });

    it('refuses a body over its size limit, announced or chunked', async () => {
      const big = JSON.stringify({ s: 'x'.repeat(2_000) });
      await expectRefusal(await postJson('/json/x', big), NOT_ALLOWED, 'JSON_THREAT');
      const chunked = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 200; i++) controller.enqueue(new TextEncoder().encode(i === 0 ? '[' : '1,'));
          controller.close();
        },
      });
      const response = await call('/json/x', { method: 'POST', body: chunked, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit);
      await expectRefusal(response, NOT_ALLOWED, 'JSON_THREAT');
    });

    it('refuses a UTF-16 body, whose NUL bytes would hide its structure', async () => {
      const nested = Buffer.from(`["\\"",${'['.repeat(10)}]`, 'utf16le');
      await expectRefusal(await call('/json/x', { method: 'POST', body: nested, headers: { 'content-type': 'application/json' } }), NOT_ALLOWED, 'JSON_THREAT');
      expect(gw.logs.at(-1)?.detail).toMatch(/^policy json-guard: /);
    });

    it('leaves bodies that are not JSON alone', async () => {
      const response = await call('/json/x', { method: 'POST', body: '[[[[[[[[', headers: { 'content-type': 'text/plain' } });
      expect(response.status).toBe(200);
    });
  });

  describe('spike-arrest', () => {
    it('smooths 10ps into one request per 100 ms window and answers 401 with Retry-After', async () => {
      clock.advance(1_000 - (clock.now() % 1_000)); // the start of a second
      expect((await call('/spike/x')).status).toBe(200);
      const arrested = await call('/spike/x');
      expect(arrested.headers.get('retry-after')).toBe('1');
      await expectRefusal(arrested, NOT_ALLOWED, 'SPIKE_ARREST');
      clock.advance(99);
      expect((await call('/spike/x')).status).toBe(401);
      clock.advance(1);
      expect((await call('/spike/x')).status).toBe(200);
    });

    it('does not let refused requests consume later windows', async () => {
      clock.advance(100);
      expect((await call('/spike/x')).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await call('/spike/x')).status).toBe(401);
      clock.advance(100);
      expect((await call('/spike/x')).status).toBe(200);
    });

    it('admits rate / 1000 per millisecond above 1000ps, where a window cannot be shorter than the clock step', async () => {
      clock.advance(1_000 - (clock.now() % 1_000));
      expect((await call('/fast/x')).status).toBe(200);
      expect((await call('/fast/x')).status).toBe(200);
      expect((await call('/fast/x')).status).toBe(401);
      clock.advance(1);
      expect((await call('/fast/x')).status).toBe(200);
      expect((await call('/fast/x')).status).toBe(200);
      expect((await call('/fast/x')).status).toBe(401);
    });

    it('counts each caller apart and spends a burst allowance only when the window is taken', async () => {
      clock.advance(60_000 - (clock.now() % 60_000));
      const partner = (id: string) => call('/burst/x', { headers: { 'x-partner': id } });
      // 60pm: one per second, plus 2 extra per minute.
      expect((await partner('a')).status).toBe(200);
      expect((await partner('a')).status).toBe(200);
      expect((await partner('a')).status).toBe(200);
      expect((await partner('a')).status).toBe(401);
      expect((await partner('b')).status).toBe(200);
      clock.advance(1_000);
      expect((await partner('a')).status).toBe(200);
      expect((await partner('a')).status).toBe(401);
      clock.advance(60_000);
      expect((await partner('a')).status).toBe(200);
      expect((await partner('a')).status).toBe(200);
    });
  });
  // Last: it moves the clock by hours, so it issues its own tokens as it goes.
  describe('time-of-day', () => {
    it('lets a request through inside the window and refuses it outside with 403', async () => {
      const nextMonday = MONDAY_9AM_CHICAGO + 7 * 86_400_000;
      clock.advance(nextMonday + 9 * 3_600_000 - 1 - clock.now()); // 17:59:59.999 local
      token = (await issueTokens(gw.url)).access_token;
      expect((await call('/hours/x')).status).toBe(200);
      clock.advance(1); // 18:00: the window's end is exclusive
      await expectRefusal(await call('/hours/x'), FORBIDDEN, 'TIME_OF_DAY_FORBIDDEN');
      clock.advance(14 * 3_600_000); // Tuesday 08:00
      token = (await issueTokens(gw.url)).access_token;
      expect((await call('/hours/x')).status).toBe(200);
    });
  });
});
