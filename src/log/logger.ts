import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs, one object per line. Nothing logs a header, a body or
 * a credential: the access line is built from named fields only, so secrets
 * are kept out by construction. The redact list is the second line of
 * defence for anyone who later logs a request object.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      // pid tells the lines of `workers: N` processes apart.
      base: { service: 'token-gateway', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
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
 * Standard output, written asynchronously: a synchronous write per access
 * line cost a protected call about a fifth of its CPU (bench/results). Lines
 * gather in a buffer and go out together, so a
 * busy gateway makes few system calls, and a quiet one writes its lines within
 * 100 ms. pino flushes what is pending when the process exits.
 */
function standardOutput(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: FLUSH_AT_BYTES });
  setInterval(() => stream.flush(), FLUSH_EVERY_MS).unref();
  return stream;
}

// Lines are written in batches of about 4 KiB, and at the latest 100 ms after they were logged.
const FLUSH_AT_BYTES = 4096;
const FLUSH_EVERY_MS = 100;
