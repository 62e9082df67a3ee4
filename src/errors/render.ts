import type { ServerResponse } from 'node:http';
import type { MediaFormat } from '../http/negotiate.js';
import { sendRecord } from '../http/respond.js';
import type { GatewayError } from './gateway-error.js';

export interface ErrorRendering {
  requestId: string;
  format: MediaFormat;
  /** Token and revocation endpoints add RFC 6749 `error` / `error_description`. */
  oauth: boolean;
}

/**
 * The one place a rejection becomes a response: the reference service's
 * envelope, with the message taken from the catalogue and never from the
 * detail (which is for logs).
 */
export function renderError(res: ServerResponse, error: GatewayError, rendering: ErrorRendering): void {
  if (res.destroyed) return; // the client is gone: nobody to tell
  if (res.headersSent) {
    // Too late for an envelope (e.g. the upstream died mid-body): cut the
    // connection so the client sees a truncated response, not a wrong one.
    res.destroy();
    return;
  }
  const { entry } = error;
  const envelope = {
    success: false,
    requestId: rendering.requestId,
    errors: [{ errorCode: error.code, errorType: entry.errorType, message: entry.message }],
    ...(rendering.oauth ? { error: entry.oauthError, error_description: entry.message } : {}),
  };
  const headers: Record<string, string> = { 'Cache-Control': 'no-store', ...error.headers };
  // A body we refused to read (too large, a JSON threat stopped mid-stream) is
  // still on the socket: close the connection rather than wait for the rest
  // or parse it as the next request.
  if (error.code === 'PAYLOAD_TOO_LARGE' || !res.req.complete) headers.Connection = 'close';
  sendRecord(res, entry.status, envelope, { format: rendering.format, xmlRoot: 'ErrorResponse', xmlItem: 'error' }, headers);
}
