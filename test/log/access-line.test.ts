import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeAccessLine, type AccessLine } from '../../src/log/access-line.js';
import { accessLoggerOf, createLogger } from '../../src/log/logger.js';

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
  return { written, logger: accessLoggerOf(createLogger(level, destination)) };
}

/** The time field differs between two calls a millisecond apart: compare everything else byte for byte. */
const withoutTime = (text: string) => text.replace(/,"time":"[^"]*"/, ',"time":"T"');

const anyText = fc.string({ unit: 'binary', maxLength: 60 });
const optionalText = fc.option(anyText, { nil: undefined });
const accessLine: fc.Arbitrary<AccessLine> = fc.record({
  requestId: anyText,
  method: optionalText,
  path: anyText,
  route: optionalText,
  status: fc.integer({ min: 100, max: 599 }),
  latencyMs: fc.oneof(fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 100), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY)),
  clientId: optionalText,
  errorCode: optionalText,
  policy: optionalText,
  detail: optionalText,
});

describe('writeAccessLine', () => {
  it("writes, byte for byte, the line pino's info(fields, 'request') writes, for any field values", () => {
    fc.assert(
      fc.property(accessLine, (line) => {
        const { written, logger } = capturing();
        writeAccessLine(logger, line);
        logger.info({ ...line }, 'request');
        expect(written).toHaveLength(2);
        expect(withoutTime(written[0]!)).toBe(withoutTime(written[1]!));
        // And it is one JSON document on one line, whatever the strings held (quotes, control characters, lone surrogates).
        expect(written[0]!.endsWith('\n')).toBe(true);
        expect(written[0]!.slice(0, -1)).not.toContain('\n');
        expect(JSON.parse(written[0]!)).toMatchObject({ level: 30, msg: 'request', status: line.status });
      }),
      { numRuns: 500 },
    );
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
