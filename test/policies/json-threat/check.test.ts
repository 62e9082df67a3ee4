import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../src/errors/catalogue.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { jsonThreat } from '../../../src/policies/json-threat/check.js';
import type { CompileDeps, PolicyCheck } from '../../../src/policies/policy.js';
import { ManualClock } from '../../helpers/clock.js';
import { policyRequest, type PolicyRequestInit } from '../../helpers/policy-request.js';

const deps: CompileDeps = {
  clock: new ManualClock(),
  windowCounter: () => {
    throw new Error('json-threat keeps no counters');
  },
};

const compile = (settings: Record<string, unknown> = {}): PolicyCheck =>
  jsonThreat.compile(jsonThreat.schema.parse({ name: 'json-guard', kind: 'json-threat', ...settings }), deps);

const JSON_HEADERS = { 'content-type': 'application/json' };
const hostile = '['.repeat(50);

/** Runs a check and returns its refusal, returned or thrown, as `{ code, detail }`. */
async function refusalOf(check: PolicyCheck, init: PolicyRequestInit) {
  const request = policyRequest(init);
  try {
    const verdict = await check(request);
    return { refusal: verdict && { code: verdict.code, detail: verdict.detail }, request };
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return { refusal: { code: error.code, detail: error.detail }, request };
  }
}

describe('json-threat: which requests are inspected', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON',
    'application/merge-patch+json',
    'application/vnd.api+json; charset=utf-8',
    'application/problem+json',
  ])('a %s body is inspected', async (contentType) => {
    const { refusal } = await refusalOf(compile(), { headers: { 'content-type': contentType }, body: [hostile] });
    expect(refusal).toEqual({ code: 'JSON_THREAT', detail: 'nested deeper than 10 levels' });
  });

  it.each([undefined, 'text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/json-seq', 'application/+json', 'text/json'])(
    'a %s body is not read at all',
    async (contentType) => {
      const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
      const { refusal, request } = await refusalOf(compile(), { headers, body: [hostile, hostile] });
      expect(refusal).toBeUndefined();
      expect(request.chunksRead()).toBe(0);
      expect(request.body.isBuffered).toBe(false);
    },
  );
});

describe('json-threat: verdicts', () => {
  it.each([
    ['an empty body', []],
    ['a whitespace-only body', [' \r\n ']],
    ['a document within every default limit', ['{"user":{"name":"Ada","roles":["admin","dev"]},"tags":[]}']],
  ])('%s passes', async (_label, body) => {
    expect((await refusalOf(compile(), { headers: JSON_HEADERS, body })).refusal).toBeUndefined();
  });

  it('passes a body that stays readable by later phases and the upstream', async () => {
    const { request } = await refusalOf(compile(), { headers: JSON_HEADERS, body: ['{"a":', '[1,2]}'] });
    expect(request.body.contents?.toString()).toBe('{"a":[1,2]}');
  });

  it('refuses with the catalogue row for JSON threats: 401, never the detail', async () => {
    const request = policyRequest({ headers: JSON_HEADERS, body: ['{"a":"', 'x'.repeat(501), '"}'] });
    const error = await Promise.resolve(compile()(request)).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'JSON_THREAT', status: 401, detail: 'string longer than 500 characters' });
    expect(catalogue.JSON_THREAT.message).toBe('Access to the requested resource is not allowed');
  });

  it('inspects a body that an earlier phase already read', async () => {
    const request = policyRequest({ headers: JSON_HEADERS, body: ['[[[[[[', '[[[[[[]]]]]]]]]]]]'] });
    await request.body.read();
    await expect(Promise.resolve(compile()(request))).rejects.toMatchObject({ code: 'JSON_THREAT' });
  });

  it('applies the settings written in the entry', async () => {
    const check = compile({ max_array_elements: 2 });
    expect((await refusalOf(check, { headers: JSON_HEADERS, body: ['[1,2]'] })).refusal).toBeUndefined();
    expect((await refusalOf(check, { headers: JSON_HEADERS, body: ['[1,2,3]'] })).refusal?.detail).toBe('array has more than 2 elements');
  });
});

describe('json-threat: a refusal stops reading', () => {
  it('leaves the rest of a many-chunk body unread once chunk 2 passes a limit', async () => {
    const body = ['{"a":', hostile, ...Array.from({ length: 200 }, () => '1,'.repeat(100))];
    const { refusal, request } = await refusalOf(compile(), { headers: JSON_HEADERS, body });
    expect(refusal?.code).toBe('JSON_THREAT');
    // The violation is in chunk 2; one more may be in flight from the stream's read-ahead.
    expect(request.chunksRead()).toBeLessThanOrEqual(3);
  });

  it('refuses an announced Content-Length over max_body_size before reading a byte', async () => {
    const headers = { ...JSON_HEADERS, 'content-length': '2049' };
    const { refusal, request } = await refusalOf(compile({ max_body_size: '2kb' }), { headers, body: ['{}'] });
    expect(refusal).toEqual({ code: 'JSON_THREAT', detail: 'content-length 2049 > 2048 bytes' });
    expect(request.chunksRead()).toBe(0);
  });

  it('refuses an unannounced body as soon as it passes max_body_size', async () => {
    const body = ['[', ...Array.from({ length: 100 }, () => ' '.repeat(1000)), ']'];
    const { refusal, request } = await refusalOf(compile({ max_body_size: '2kb' }), { headers: JSON_HEADERS, body });
    expect(refusal).toEqual({ code: 'JSON_THREAT', detail: 'body larger than 2048 bytes' });
    expect(request.chunksRead()).toBeLessThanOrEqual(6);
  });

  it.each(['gzip', 'br', 'deflate, gzip'])('refuses a %s-encoded body it cannot measure, unread', async (encoding) => {
    const headers = { ...JSON_HEADERS, 'content-encoding': encoding };
    const { refusal, request } = await refusalOf(compile(), { headers, body: ['\x1f\x8b'] });
    expect(refusal?.detail).toBe('a content-encoded JSON body cannot be inspected');
    expect(request.chunksRead()).toBe(0);
  });

  it('inspects an identity-encoded body like any other', async () => {
    const headers = { ...JSON_HEADERS, 'content-encoding': 'identity' };
    expect((await refusalOf(compile(), { headers, body: ['{}'] })).refusal).toBeUndefined();
  });
});

describe('json-threat: unlimited limits', () => {
  it('switches off the limits written as unlimited, and only those', async () => {
    const check = compile({ max_depth: 'unlimited', max_body_size: 'unlimited' });
    expect((await refusalOf(check, { headers: JSON_HEADERS, body: [`${'['.repeat(200)}${']'.repeat(200)}`] })).refusal).toBeUndefined();
    expect((await refusalOf(check, { headers: JSON_HEADERS, body: [JSON.stringify({ s: 'x'.repeat(501) })] })).refusal?.code).toBe('JSON_THREAT');
  });

  it('lets a body past any size through with max_body_size: unlimited (the gateway limit still holds)', async () => {
    const check = compile({ max_body_size: 'unlimited', max_array_elements: 'unlimited' });
    const big = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => i));
    const { refusal } = await refusalOf(check, { headers: { ...JSON_HEADERS, 'content-length': String(big.length) }, body: [big], bodyLimit: 10 * 1024 * 1024 });
    expect(refusal).toBeUndefined();
  });
});

describe('json-threat: require_valid_json', () => {
  const strict = compile({ require_valid_json: true });

  it.each([
    ['an unclosed object', '{"a":1'],
    ['a trailing comma', '{"a":1,}'],
    ['single quotes', "{'a':1}"],
    ['two documents', '{} {}'],
  ])('refuses %s', async (_case, body) => {
    expect((await refusalOf(strict, { headers: JSON_HEADERS, body: [body] })).refusal).toEqual({ code: 'JSON_THREAT', detail: 'the body is not valid JSON' });
  });

  it.each([
    ['a valid document', '{"a":[1,2]}'],
    ['a byte-order mark before it', '\uFEFF{"a":1}'],
    ['an empty body', ''],
  ])('passes %s', async (_case, body) => {
    expect((await refusalOf(strict, { headers: JSON_HEADERS, body: body === '' ? [] : [body] })).refusal).toBeUndefined();
  });

  it('is off by default: a malformed body within the limits passes, as before', async () => {
    expect((await refusalOf(compile(), { headers: JSON_HEADERS, body: ['{"a":1'] })).refusal).toBeUndefined();
  });

  it('reports a limit before validity: the limits are measured first', async () => {
    expect((await refusalOf(strict, { headers: JSON_HEADERS, body: [`${'['.repeat(11)}`] })).refusal?.detail).toMatch(/nested deeper/);
  });
});
