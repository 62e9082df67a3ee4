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

/**
 * pino's ISO time, formatted once per millisecond: a busy gateway logs
 * several lines in the same millisecond, and formatting a Date is a few
 * microseconds each time.
 */
let formattedAt = -1;
let formatted = '';
function isoTimeByMillisecond(): string {
  const now = Date.now();
  if (now !== formattedAt) {
    formattedAt = now;
    formatted = `,"time":"${new Date(now).toISOString()}"`;
  }
  return formatted;
}
