import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { createLogger, timeFieldAt } from '../../src/log/logger.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('info', destination) };
}

describe('logger', () => {
  it('logs a GatewayError as err, with its cause, without throwing (it used to crash the process)', () => {
    const { lines, logger } = capture();
    const error = new GatewayError('SERVICE_UNAVAILABLE', { detail: 'redis is reconnecting', cause: new Error('connection lost') });
    expect(() => logger.warn({ err: error }, 'could not load the changed key ring')).not.toThrow();
    expect(() => logger.warn({ err: error }, 'the same error again')).not.toThrow();
    expect(lines[0]).toMatchObject({ msg: 'could not load the changed key ring', err: { type: 'GatewayError', code: 'SERVICE_UNAVAILABLE', detail: 'redis is reconnecting' } });
    expect(String((lines[0]?.err as { message: string }).message)).toContain('connection lost');
    expect(lines[0]).toHaveProperty('pid', process.pid);
  });

  // The time field is formatted once per second and finished per millisecond (timeFieldAt): it must be what
  // toISOString writes for every millisecond, in whatever order they come, across every boundary.
  it('writes the time field toISOString writes, millisecond by millisecond, across seconds, days and years', () => {
    const iso = (now: number) => `,"time":"${new Date(now).toISOString()}"`;
    const boundaries = [Date.UTC(2026, 11, 31, 23, 59, 59, 998), Date.UTC(2026, 11, 3, 11, 50, 5, 0) - 3, Date.UTC(9999, 11, 31, 23, 59, 59, 999), 0];
    for (const start of boundaries) for (let now = start; now < start + 5; now++) expect(timeFieldAt(now)).toBe(iso(now));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4_102_444_800_000 }), { minLength: 1, maxLength: 20 }), fc.integer({ min: 0, max: 2_000 }), (starts, step) => {
        for (const start of starts) {
          // The same millisecond twice, the next one, one a step on (often in another second).
          for (const now of [start, start, start + 1, start + step]) expect(timeFieldAt(now)).toBe(iso(now));
        }
      }),
      { numRuns: 300 },
    );
  });
});
