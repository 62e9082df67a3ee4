import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isJsonContentType, preferredFormat } from '../../src/http/negotiate.js';

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
