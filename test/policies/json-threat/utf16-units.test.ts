import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf16Counter } from '../../../src/policies/json-threat/utf16-units.js';

/** Code units the counter reports for `bytes`, ended. */
function count(bytes: Uint8Array): number {
  const counter = new Utf16Counter();
  let units = 0;
  for (const byte of bytes) units += counter.take(byte);
  return units + counter.flush();
}

/** What the gateway's own decoding (Buffer#toString, the WHATWG decoder) produces. */
const decodedLength = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8').length;

describe('counting UTF-16 code units of a UTF-8 stream without decoding it', () => {
  it.each([
    ['ASCII', 'abc', 3],
    ['two-byte', 'é', 1],
    ['three-byte', '€', 1],
    ['beyond the BMP: a surrogate pair', '😀', 2],
    ['mixed', 'a€😀é', 5],
  ])('%s', (_case, text, units) => {
    expect(count(Buffer.from(text, 'utf8'))).toBe(units);
  });

  it.each([
    ['a stray continuation byte', [0x80]],
    ['an overlong form (C0 80)', [0xc0, 0x80]],
    ['an encoded surrogate (ED A0 80)', [0xed, 0xa0, 0x80]],
    ['past U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80]],
    ['a sequence cut short, then ASCII', [0xe2, 0x82, 0x41]],
    ['a sequence open at the end', [0x41, 0xf0, 0x9f]],
    ['F5 and above', [0xf5, 0xff]],
  ])('counts %s as the replacement characters the decoder makes', (_case, bytes) => {
    expect(count(Uint8Array.from(bytes))).toBe(decodedLength(Uint8Array.from(bytes)));
  });

  it('agrees with the decoder on any bytes at all', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => count(bytes) === decodedLength(bytes)));
  });
});
