import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { assertOneMediaType, isJsonContentType, preferredFormat } from '../../src/http/negotiate.js';

const withAccept = (accept?: string) => ({ headers: accept === undefined ? {} : { accept } }) as IncomingMessage;

describe('preferredFormat', () => {
  it.each([
    [undefined, 'json'],
    ['application/json', 'json'],
    ['application/xml', 'xml'],
    ['text/xml', 'xml'],
    ['*/*', 'json'],
    ['application/xml, application/json', 'json'],
    ['application/xml;q=1, application/json;q=0.5', 'xml'],
    ['text/html', 'json'],
  ])('Accept %j -> %s', (accept, format) => expect(preferredFormat(withAccept(accept))).toBe(format));
});

describe('isJsonContentType', () => {
  it.each([
    ['application/json', true],
    ['Application/JSON; charset=utf-8', true],
    ['application/xml', false],
    ['application/x-www-form-urlencoded', false],
    ['application/jsonp', false],
    [undefined, false],
  ])('%j -> %s', (value, expected) => expect(isJsonContentType(value)).toBe(expected));
});

describe('assertOneMediaType: a Content-Type is one media type', () => {
  const verdict = (value: string | undefined) => {
    try {
      assertOneMediaType(value);
      return 'ok';
    } catch (error) {
      return (error as { code?: string }).code;
    }
  };
  it.each([undefined, 'application/json', 'application/json; charset=utf-8', 'multipart/form-data; boundary="a,b"'])('accepts %j', (value) => {
    expect(verdict(value)).toBe('ok');
  });
  it.each(['application/json, application/json', 'application/json, text/plain; charset=utf-8', 'text/plain,application/json'])('refuses %j as MALFORMED_REQUEST', (value) => {
    expect(verdict(value)).toBe('MALFORMED_REQUEST');
  });
});
