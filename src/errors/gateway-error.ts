import { catalogue, type CatalogueEntry, type ErrorCode } from './catalogue.js';

export interface GatewayErrorOptions {
  /** For logs only: never rendered to the client, never holds a secret. */
  detail?: string;
  /** Extra response headers, e.g. WWW-Authenticate or Retry-After. */
  headers?: Readonly<Record<string, string>>;
  cause?: unknown;
  /** The policy whose check refused the request, for the access line's `policy` field and the metrics. */
  policy?: string;
  /** That policy's kind (`spike-arrest`...), for the metrics' `kind` label. */
  policyKind?: string;
}

/**
 * The one error type of the gateway. A check throws it (or returns it as a
 * verdict) and a single renderer turns it into the spec's envelope, so the
 * public message always comes from the catalogue and the detail stays in logs.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly detail: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly policy: string | undefined;
  readonly policyKind: string | undefined;

  constructor(code: ErrorCode, options: GatewayErrorOptions = {}) {
    super(options.detail ?? catalogue[code].message, { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.detail = options.detail;
    this.headers = options.headers ?? {};
    this.policy = options.policy;
    this.policyKind = options.policyKind;
  }

  /**
   * The spec's row for the code. A getter, not a field: pino's error
   * serializer walks an error's own fields and tags every error-like one (the
   * entry has a `message`), and tagging the frozen catalogue entry threw,
   * which crashed the process wherever a GatewayError was logged as `err`.
   */
  get entry(): CatalogueEntry {
    return catalogue[this.code];
  }

  get status(): number {
    return this.entry.status;
  }
}

export const isGatewayError = (value: unknown): value is GatewayError => value instanceof GatewayError;
