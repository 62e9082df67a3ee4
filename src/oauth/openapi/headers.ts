import type { OpenApiObject } from './types.js';
import { headerRef } from './types.js';

/** The pattern of src/http/request-id.ts: a client's id is kept when it fits, otherwise one is generated. */
export const REQUEST_ID_PATTERN = '^[A-Za-z0-9._:-]{8,128}$';

/** Response headers shared by several responses (components.headers). */
export const SHARED_HEADERS: Readonly<Record<string, OpenApiObject>> = {
  'X-Request-Id': {
    description: 'The request id: the client\'s own `X-Request-Id` when it is 8 to 128 characters of `A-Z a-z 0-9 . _ : -`, otherwise a generated one. Also in every error envelope and in the log line.',
    required: true,
    schema: { type: 'string', pattern: REQUEST_ID_PATTERN },
  },
  'Cache-Control.no-store': {
    description: 'Token responses and errors are never cached (RFC 6749 5.1).',
    required: true,
    schema: { type: 'string', const: 'no-store' },
  },
  'Retry-After.required': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'Retry-After.spike-arrest': {
    description: 'With `SPIKE_ARREST` only: seconds until the next window opens.',
    required: false,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'WWW-Authenticate.basic': {
    description: 'With `INVALID_CLIENT_CREDENTIALS` when the client authenticated with HTTP Basic (RFC 6749 5.2).',
    required: false,
    schema: { type: 'string', const: 'Basic realm="token-gateway", charset="UTF-8"' },
  },
};

/** Headers of every response. */
export const requestIdHeader = (): Record<string, OpenApiObject> => ({ 'X-Request-Id': headerRef('X-Request-Id') });

/** `Allow` of a 405: the methods the path accepts, exactly as the gateway sends them. */
export const allowHeader = (methods: readonly string[]): OpenApiObject => ({
  description: 'The methods this path accepts.',
  required: true,
  schema: { type: 'string', const: methods.join(', ') },
});
