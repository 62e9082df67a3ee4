import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeAccessLine, type AccessLine } from '../../src/log/access-line.js';
import { createLogger } from '../../src/log/logger.js';

/** A logger whose destination keeps each written line as text. */
function capturing(level = 'info') {
  const written: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  // pino writes to a stream's write() directly (no buffering by the Writable's machinery for our purpose).
  return { written, logger: createLogger(level, destination) };
}

/** The time field differs between two calls a millisecond apart: compare everything else byte for byte. */
const withoutTime = (text: string) => text.replace(/,"time":"[^"]*"/, ',"time":"T"');

// Up to 150 code units, past the length below which pino escapes strings itself. Half the lines have strings of any
// code unit but half surrogates (fast-check's 'binary' unit leaves those out); the other half may hold lone surrogates.
const wellFormedText = fc.string({ unit: 'binary', maxLength: 150 });
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
const anyUnitText = fc.string({ unit: fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), loneSurrogate), maxLength: 150 });
const accessLineOf = (text: fc.Arbitrary<string>): fc.Arbitrary<AccessLine> => {
  const optional = fc.option(text, { nil: undefined });
  return fc.record({
    requestId: text,
    method: optional,
    path: text,
    route: optional,
    status: fc.integer({ min: 100, max: 599 }),
    latencyMs: fc.oneof(fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 100), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY)),
    clientId: optional,
    errorCode: optional,
    policy: optional,
    detail: optional,
  });
};
// Printable ASCII, the usual field: strings with nothing to escape are quoted without JSON.stringify, so they get their
// own share of the runs ('binary' strings of more than a character nearly always hold something to escape).
const asciiText = fc.string({ unit: 'binary-ascii', maxLength: 150 });
const accessLine = fc.oneof(accessLineOf(wellFormedText), accessLineOf(anyUnitText), accessLineOf(asciiText));

describe('writeAccessLine', () => {
  it("writes the line pino's info(fields, 'request') writes: byte for byte for well-formed strings, the same value for any", () => {
    let wellFormed = 0;
    let lone = 0;
    fc.assert(
      fc.property(accessLine, (line) => {
        const { written, logger } = capturing();
        writeAccessLine(logger, line);
        logger.info({ ...line }, 'request');
        expect(written).toHaveLength(2);
        const texts = Object.values(line).filter((value): value is string => typeof value === 'string');
        if (texts.every((text) => Buffer.from(text).toString() === text)) {
          wellFormed++;
          expect(withoutTime(written[0]!)).toBe(withoutTime(written[1]!));
        } else {
          // pino writes a lone surrogate raw, and once encoded it is U+FFFD; the template escapes it, so the line
          // parses back to the very value.
          lone++;
          const parsed = JSON.parse(written[0]!) as Record<string, unknown>;
          for (const [key, value] of Object.entries(line)) if (typeof value === 'string') expect(parsed[key]).toBe(value);
        }
        // And it is one JSON document on one line, whatever the strings held (quotes, control characters, lone surrogates).
        expect(written[0]!.endsWith('\n')).toBe(true);
        expect(written[0]!.slice(0, -1)).not.toContain('\n');
        expect(JSON.parse(written[0]!)).toMatchObject({ level: 30, msg: 'request', status: line.status });
      }),
      { numRuns: 500 },
    );
    // Both kinds were tried.
    expect(wellFormed).toBeGreaterThan(50);
    expect(lone).toBeGreaterThan(50);
  });

  it.each([
    ['U+001F', '\u001f'],
    ['a space', ' '],
    ['U+007F', '\u007f'],
    ['a quote', '"'],
    ['a backslash', '\\'],
    ['U+D7FF', '\ud7ff'],
    ['U+E000', '\ue000'],
    ['U+2028', '\u2028'],
    ['a surrogate pair', '\ud83d\ude00'],
  ])("writes a string holding %s as pino's line does", (_name, char) => {
    const { written, logger } = capturing();
    const line: AccessLine = { requestId: `id${char}`, method: 'GET', path: `/a${char}b`, route: undefined, status: 200, latencyMs: 1, clientId: char, errorCode: undefined, policy: undefined, detail: undefined };
    writeAccessLine(logger, line);
    logger.info({ ...line }, 'request');
    expect(withoutTime(written[0]!)).toBe(withoutTime(written[1]!));
  });

  it.each([['U+D800', '\ud800'], ['U+DFFF', '\udfff']])('escapes a lone surrogate (%s), so the line parses back to the value', (_name, char) => {
    const { written, logger } = capturing();
    writeAccessLine(logger, { requestId: 'r', method: 'GET', path: `/a${char}b`, route: undefined, status: 200, latencyMs: 1, clientId: undefined, errorCode: undefined, policy: undefined, detail: undefined });
    expect(written[0]).toContain(`/a\\u${char.charCodeAt(0).toString(16)}b`);
    expect((JSON.parse(written[0]!) as { path: string }).path).toBe(`/a${char}b`);
  });

  // The method, path, route and client id are quoted once for as long as the next line repeats them (LastQuoted).
  it('quotes each line its own fields, when a field repeats, changes, needs escaping and comes back', () => {
    const { written, logger } = capturing();
    const paths = ['/a', '/a', `/a"b`, ['/', 'a'].join(''), '/ax', '/a\u0001', '/a'];
    for (const [i, path] of paths.entries()) {
      const clientId = i % 2 === 0 ? 'app-1' : `app-${String(1)}`;
      writeAccessLine(logger, { requestId: `r-${i}`, method: i === 2 ? 'POST' : 'GET', path, route: i < 3 ? '/a' : undefined, status: 200, latencyMs: 1, clientId, errorCode: undefined, policy: undefined, detail: undefined });
    }
    const parsed = written.map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(parsed.map((line) => line.path)).toEqual(paths);
    expect(parsed.map((line) => line.method)).toEqual(['GET', 'GET', 'POST', 'GET', 'GET', 'GET', 'GET']);
    expect(parsed.map((line) => line.route)).toEqual(['/a', '/a', '/a', undefined, undefined, undefined, undefined]);
    expect(parsed.every((line) => line.clientId === 'app-1')).toBe(true);
    expect(written[2]).toContain(String.raw`"path":"/a\"b"`);
  });

  it('leaves out the fields that are undefined, as pino does, and keeps the logger bindings and the time', () => {
    const { written, logger } = capturing();
    writeAccessLine(logger, {
      requestId: 'r-1',
      method: 'GET',
      path: '/business/score/v2/directors',
      route: undefined,
      status: 404,
      latencyMs: 0.25,
      clientId: undefined,
      errorCode: 'NOT_FOUND',
      policy: undefined,
      detail: undefined,
    });
    const parsed = JSON.parse(written[0]!) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['level', 'time', 'service', 'pid', 'requestId', 'method', 'path', 'status', 'latencyMs', 'errorCode', 'msg']);
    expect(parsed).toMatchObject({ service: 'token-gateway', pid: process.pid, status: 404, latencyMs: 0.25, errorCode: 'NOT_FOUND' });
    expect(Date.parse(parsed.time as string)).toBeGreaterThan(0);
  });
});
