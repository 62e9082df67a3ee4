import { pino, type DestinationStream, type Logger } from 'pino';
import { standardOutput } from './destination.js';

export type { Logger };

/**
 * Structured JSON logs, one object per line. Nothing logs a header, a body or
 * a credential: the access line is built from named fields only, so secrets
 * are kept out by construction. The redact list is the second line of
 * defence for anyone who later logs a request object; the access line never
 * goes through it (access-line.ts writes it from a template with this
 * logger's level, time, bindings and destination), because walking its
 * wildcard paths cost a protected call more than building the line.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      // pid tells the lines of `workers: N` processes apart.
      base: { service: 'token-gateway', pid: process.pid },
      timestamp: isoTimeByMillisecond,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.client_secret',
          'req.headers.refresh_token',
          'req.headers.token',
          '*.password',
          '*.client_secret',
          '*.refresh_token',
          '*.access_token',
        ],
        censor: '[redacted]',
      },
    },
    destination ?? standardOutput(),
  );
}

/** pino's `timestamp` option: the time field of the line being written now. */
const isoTimeByMillisecond = (): string => timeFieldAt(Date.now());

/**
 * pino's ISO time field (`,"time":"2026-12-03T11:50:05.042Z"`) for the
 * millisecond `now`, formatted once per millisecond: a busy gateway logs
 * several lines in the same millisecond. Within a second only the
 * milliseconds change, so `Date.prototype.toISOString` (which V8 formats with
 * `snprintf`: about 6k instructions) runs once per second, and each new
 * millisecond is three digits appended to the second's prefix. Under a
 * profiler or a slow spell, when every line falls in a millisecond of its
 * own, that was the access line's largest single cost (bench/README.md,
 * "Counted in instructions").
 */
let formattedAt = Number.NaN;
let formatted = '';
let secondAt = Number.NaN;
let secondPrefix = '';
export function timeFieldAt(now: number): string {
  if (now === formattedAt) return formatted;
  const second = Math.floor(now / 1000) * 1000;
  if (second !== secondAt) {
    const iso = new Date(second).toISOString();
    // Everything but the milliseconds and the Z ("sssZ"), whatever the year's width.
    secondPrefix = `,"time":"${iso.slice(0, -4)}`;
    secondAt = second;
  }
  formatted = `${secondPrefix}${String(now - second).padStart(3, '0')}Z"`;
  formattedAt = now;
  return formatted;
}
