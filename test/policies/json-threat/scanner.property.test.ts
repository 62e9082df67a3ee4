import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNLIMITED, type JsonLimits, type JsonMeasurements } from '../../../src/policies/json-threat/limits.js';
import { JsonThreatScanner, measureJson } from '../../../src/policies/json-threat/scanner.js';
import { Utf16Counter } from '../../../src/policies/json-threat/utf16-units.js';
import { exceedsAny, measureParsed } from './walk.js';

/** Cuts bytes at the given points (any numbers; taken modulo the length). */
function cut(bytes: Buffer, points: number[]): Buffer[] {
  const offsets = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  return [...offsets, bytes.length].map((end, i) => bytes.subarray(offsets[i - 1] ?? 0, end));
}

// Only strings hold non-ASCII characters in JSON text, so escaping them all keeps it valid.
const escapeNonAscii = (text: string) =>
  text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A JSON text as clients might send it: any indentation, raw or \u-escaped characters, in any chunks. */
const jsonBody = fc
  .record({
    value: fc.jsonValue({ stringUnit: 'binary', maxDepth: 6 }),
    indent: fc.constantFrom(undefined, 0, 1, 2, 4, '\t', ' \r\n'),
    escaped: fc.boolean(),
    cuts: fc.array(fc.nat(), { maxLength: 8 }),
  })
  .map(({ value, indent, escaped, cuts }) => {
    // JSON.stringify's `space` must be whitespace for the text to stay JSON; ' \r\n' is.
    const text = JSON.stringify(value, null, indent);
    const bytes = Buffer.from(escaped ? escapeNonAscii(text) : text);
    return { bytes, chunks: cut(bytes, cuts) };
  });

const parsedMeasurements = (bytes: Buffer): JsonMeasurements => ({
  ...measureParsed(JSON.parse(bytes.toString('utf8'))),
  bytes: bytes.length,
});

/** Limits around the measured values (one under, at, one over), never below 1. */
const limitsNear = (measured: JsonMeasurements, shifts: number[]): JsonLimits => {
  const near = (value: number, i: number) => Math.max(1, value + (shifts[i] ?? 0));
  return {
    maxDepth: near(measured.depth, 0),
    maxObjectEntries: near(measured.objectEntries, 1),
    maxArrayElements: near(measured.arrayElements, 2),
    maxNameLength: near(measured.nameLength, 3),
    maxStringLength: near(measured.stringLength, 4),
    maxBodySize: near(measured.bytes, 5),
  };
};

function scanChunks(limits: JsonLimits, chunks: Buffer[]): string | undefined {
  const scanner = new JsonThreatScanner(limits);
  for (const chunk of chunks) {
    const violation = scanner.write(chunk);
    if (violation) return violation;
  }
  return scanner.end();
}

describe('the scanner agrees with JSON.parse', () => {
  it('measures what a walk of the parsed value finds, however the text is chunked', () => {
    fc.assert(
      fc.property(jsonBody, ({ bytes, chunks }) => {
        expect(measureJson(chunks)).toEqual(parsedMeasurements(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses exactly when some measure of the parsed value passes its limit', () => {
    const shifts = fc.array(fc.integer({ min: -1, max: 1 }), { minLength: 6, maxLength: 6 });
    fc.assert(
      fc.property(jsonBody, shifts, ({ bytes, chunks }, shift) => {
        const measured = parsedMeasurements(bytes);
        const limits = limitsNear(measured, shift);
        expect(scanChunks(limits, chunks) !== undefined).toBe(exceedsAny(measured, limits));
      }),
      { numRuns: 300 },
    );
  });
});

describe('the scanner on arbitrary bytes', () => {
  // Bytes biased towards JSON's structural characters, so the odd states (escapes, open strings) are reached.
  const structural = [...Buffer.from('{}[]":,\\u0aA \n')];
  const anyBytes = fc
    .array(fc.oneof(fc.constantFrom(...structural), fc.integer({ min: 0, max: 255 })), { maxLength: 300 })
    .map((bytes) => Buffer.from(bytes));
  const anyLimits = fc.record({
    maxDepth: fc.integer({ min: 1, max: 8 }),
    maxObjectEntries: fc.integer({ min: 1, max: 8 }),
    maxArrayElements: fc.integer({ min: 1, max: 8 }),
    maxNameLength: fc.integer({ min: 1, max: 8 }),
    maxStringLength: fc.integer({ min: 1, max: 8 }),
    maxBodySize: fc.integer({ min: 1, max: 400 }),
  });

  it('never throws, and gives a verdict that does not depend on the chunking', () => {
    fc.assert(
      fc.property(anyBytes, anyLimits, fc.array(fc.nat(), { maxLength: 8 }), (bytes, limits, cuts) => {
        const whole = scanChunks(limits, [bytes]);
        expect(scanChunks(limits, cut(bytes, cuts))).toBe(whole);
        expect(measureJson(cut(bytes, cuts))).toEqual(measureJson([bytes]));
      }),
      { numRuns: 500 },
    );
  });

  it('counts UTF-16 code units as Buffer#toString decodes them, malformed bytes included', () => {
    // Well-formed text (astral characters included) as well as random bytes.
    const text = fc.string({ unit: 'binary', maxLength: 16 }).map((s) => new Uint8Array(Buffer.from(s)));
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), text), (bytes) => {
        const counter = new Utf16Counter();
        let units = 0;
        for (const byte of bytes) units += counter.take(byte);
        units += counter.flush();
        expect(units).toBe(Buffer.from(bytes).toString('utf8').length);
      }),
      { numRuns: 1000 },
    );
  });
});

it('treats unlimited as no limit at all', () => {
  expect(scanChunks(UNLIMITED, [Buffer.from('['.repeat(10_000))])).toBeUndefined();
});
