import { describe, expect, it } from 'vitest';
import { fromHar } from '../../src/cli/har-entry.js';
import { RequestFileError } from '../../src/cli/request-from-file.js';

const FILE = 'request.har';
const request = { method: 'post', url: 'https://api.example.com/a/b?c=1', headers: [{ name: ':authority', value: 'api.example.com' }, { name: 'Content-Type', value: 'application/json' }], postData: { mimeType: 'application/json', text: '{"x":1}' } };
const expected = { method: 'POST', target: '/a/b?c=1', headers: [['Content-Type', 'application/json']], body: Buffer.from('{"x":1}') };
const problemOf = (document: unknown) => {
  try {
    fromHar(typeof document === 'string' ? document : JSON.stringify(document), FILE);
    return 'parsed';
  } catch (error) {
    return error instanceof RequestFileError ? error.message : `not a RequestFileError: ${String(error)}`;
  }
};

describe('a HAR entry as a request (--request-file)', () => {
  it.each([
    ['a whole log of one entry', { log: { version: '1.2', entries: [{ request }] } }],
    ['one entry', { startedDateTime: '2026-11-23T15:00:00Z', request }],
    ['a request alone', request],
  ])('reads %s, leaving out HTTP/2 pseudo-headers', (_case, document) => {
    expect(fromHar(JSON.stringify(document), FILE)).toEqual(expected);
  });

  it('form-encodes postData params when the entry has no text', () => {
    const form = fromHar(JSON.stringify({ ...request, postData: { mimeType: 'application/x-www-form-urlencoded', params: [{ name: 'a b', value: '1&2' }, { name: 'c' }] } }), FILE);
    expect(form.body?.toString()).toBe('a+b=1%262&c=');
  });

  it.each([
    ['JSON that does not parse', '{"log":', /^request\.har is not valid JSON \(.+\); expected a HAR entry$/],
    ['a log of two entries', { log: { entries: [{ request }, { request }] } }, /^request\.har: the HAR log holds 2 entries; save one request \(an entry\) to test it$/],
    ['JSON that is not HAR', { hello: 'world' }, /^request\.har: expected a HAR log with one entry, an entry \(with "request"\) or a request \(with "method" and "url"\)$/],
    ['a request without a url', { request: { method: 'GET' } }, /^request\.har: a HAR request needs "method" and "url" strings$/],
    ['headers that are not a list', { request: { ...request, headers: { Accept: 'x' } } }, /^request\.har: "headers" of a HAR request is a list of \{name, value\}$/],
    ['a header without a value', { request: { ...request, headers: [{ name: 'Accept' }] } }, /^request\.har: every HAR header needs "name" and "value" strings$/],
  ])('refuses %s with one clear sentence', (_case, document, message) => {
    expect(problemOf(document)).toMatch(message);
  });
});
