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
    destination,
  );
}
