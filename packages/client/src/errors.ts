/**
 * The two ways a call to the gateway's OAuth endpoints can fail, as seen by a
 * client: the gateway answered with its error envelope (`TokenGatewayError`),
 * or there was no usable answer at all (`TokenRequestError`). Neither ever
 * carries a credential: messages come from the gateway's fixed catalogue or
 * are written here, and the request that was sent is not kept.
 */

/** The body of every gateway error (SPEC 7; the envelope is documented in the gateway README, "Errors"). */
export interface ErrorEnvelope {
  success: false;
  requestId?: string;
  errors: Array<{ errorCode: string; errorType?: string; message: string }>;
  /** RFC 6749 5.2 code, on the token and revocation endpoints. */
  error?: string;
}

export interface TokenGatewayErrorInit {
  status: number;
  errorCode: string;
  message: string;
  requestId: string | undefined;
  retryAfter?: number | undefined;
  oauthError?: string | undefined;
}

/**
 * The gateway refused a token or revocation request. Switch on `errorCode`
 * (stable, from the gateway's catalogue), not on `message`.
 */
export class TokenGatewayError extends Error {
  /** HTTP status, e.g. 401 for `INVALID_CLIENT_CREDENTIALS`. */
  readonly status: number;
  /** The catalogue code, e.g. `INVALID_CLIENT_CREDENTIALS`, `INVALID_REFRESH_TOKEN`, `SERVICE_UNAVAILABLE`. */
  readonly errorCode: string;
  /** The gateway's request id: quote it to the operator, it finds the log line. */
  readonly requestId: string | undefined;
  /** Seconds to wait before trying again, when the gateway said so (`Retry-After`). */
  readonly retryAfter: number | undefined;
  /** The RFC 6749 `error` code (`invalid_client`, `invalid_grant`, ...), when present. */
  readonly oauthError: string | undefined;

  constructor(init: TokenGatewayErrorInit) {
    super(init.message);
    this.name = 'TokenGatewayError';
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.oauthError = init.oauthError;
  }
}

/**
 * No usable answer from the gateway: the network failed, the request timed
 * out, or the response was not the spec's (an HTML page from a load balancer,
 * a token response with a missing field). `cause` holds the underlying error.
 */
export class TokenRequestError extends Error {
  /** The HTTP status, when a response arrived. */
  readonly status: number | undefined;

  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'TokenRequestError';
    this.status = options.status;
  }
}

/**
 * The refresh token can no longer be exchanged (invalid, expired after 24 h,
 * revoked, or used already): the gateway's `INVALID_REFRESH_TOKEN` row, 400
 * `invalid_grant` as RFC 6749 5.2 says. Only then does the client fall back to
 * the password grant; anything else (a wrong client secret, an outage) would
 * fail the password grant just the same, or for the same reason.
 */
export function isRefreshTokenGone(error: unknown): boolean {
  return (
    error instanceof TokenGatewayError &&
    error.status === 400 &&
    (error.errorCode === 'INVALID_REFRESH_TOKEN' || error.oauthError === 'invalid_grant')
  );
}

/**
 * Worth trying again later, with the same credentials: no answer, the
 * gateway is overloaded or unavailable (429, 5xx), or it said when to come
 * back (`Retry-After`, also sent with spike arrest's 401).
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof TokenRequestError) return error.status === undefined || isOverloaded(error.status);
  if (!(error instanceof TokenGatewayError)) return false;
  return isOverloaded(error.status) || error.retryAfter !== undefined;
}

const isOverloaded = (status: number): boolean => status === 429 || status >= 500;

/**
 * A refresh that may have reached the gateway, rotated the refresh token
 * there, and lost its answer on the way back: no answer at all (a timeout, a
 * dropped connection), or a 5xx (the gateway's 503 after a store timeout, a
 * balancer's 502 or 504). Presenting the same refresh token once more is then
 * safe: within the gateway's grace window (`tokens.refresh_grace`, 30 s by
 * default) a retry is answered with the same successor, not taken for theft.
 */
export function mayHaveRotated(error: unknown): boolean {
  if (error instanceof TokenRequestError) return error.status === undefined || error.status >= 500;
  return error instanceof TokenGatewayError && error.status >= 500;
}
