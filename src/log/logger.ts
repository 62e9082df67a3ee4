import { pino, type DestinationStream, type Logger } from 'pino';
import { standardOutput } from './destination.js';

export type { Logger };

/**
 * Structured JSON logs, one object per line. Nothing logs a header, a body or
 * a credential: the access line is built from named fields only, so secrets
 * are kept out by construction. The redact list is the second line of
 * defence for anyone who later logs a request object; the access line never
 * goes through it (access-line.ts writes it from a template), because walking
 * its wildcard paths cost a protected call more than building the line.
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
 * The logger of the access line: the same level, bindings, time and
 * destination, without the redaction pass. writeAccessLine (access-line.ts)
 * takes the line's parts from it; anything that logs an object must use the
 * gateway's logger.
 */
export function accessLoggerOf(logger: Logger): Logger {
  return logger.child({}, { redact: [] });
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
