import type { ServerResponse } from 'node:http';
import type { MediaFormat } from './negotiate.js';
import { sendRecord } from './respond.js';
import { catalogue, type ErrorCode } from '../errors/catalogue.js';
import type { GatewayError } from '../errors/gateway-error.js';

/** The XML form of the envelope: `<ErrorResponse>...<errors><error>...</error></errors></ErrorResponse>`. */
export const ERROR_XML = Object.freeze({ xmlRoot: 'ErrorResponse', xmlItem: 'error' });

/**
 * The reference service's envelope for a catalogue code, with the message
 * from the catalogue. Also what the OpenAPI document's examples are made of,
 * so the documented bodies are the rendered ones.
 */
export function errorEnvelope(code: ErrorCode, requestId: string, oauth: boolean) {
  const entry = catalogue[code];
  return {
    success: false,
    requestId,
    errors: [{ errorCode: code, errorType: entry.errorType, message: entry.message }],
    ...(oauth ? { error: entry.oauthError, error_description: entry.message } : {}),
  };
}

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
  const envelope = errorEnvelope(error.code, rendering.requestId, rendering.oauth);
  const headers: Record<string, string> = { 'Cache-Control': 'no-store', ...error.headers, 'X-Request-Id': rendering.requestId };
  const send = (close: boolean) => {
    if (res.destroyed || res.headersSent) return;
    if (close) headers.Connection = 'close';
    try {
      sendRecord(res, error.status, envelope, { format: rendering.format, ...ERROR_XML }, headers);
    } catch {
      // Runs from timers and stream events too, where a throw would end the
      // process: an answer that cannot be written costs the connection only.
      res.destroy();
    }
  };
  const { req } = res;
  if (req.complete) return send(error.code === 'PAYLOAD_TOO_LARGE');
  // A body we did not read (refused before it mattered, a JSON threat stopped
  // mid-stream, too large) is still on the socket. Closing a socket with
  // unread data makes the kernel send a reset, which can reach the client
  // before our answer does: so a small body is read and discarded first
  // (bounded in time) and the connection stays usable; a large one, or one
  // that does not arrive, gets the answer with the connection closed.
  if (error.code === 'PAYLOAD_TOO_LARGE' || !(announcedLength(req.headers['content-length']) <= DRAIN_AT_MOST_BYTES)) return send(true);
  const timer = setTimeout(() => send(true), DRAIN_AT_MOST_MS);
  const done = () => {
    clearTimeout(timer);
    send(!req.complete);
  };
  req.once('end', done);
  req.once('error', done);
  req.once('close', done);
  req.resume();
}

/** Unread request bodies up to this size are drained before an error is answered. */
const DRAIN_AT_MOST_BYTES = 64 * 1024;
const DRAIN_AT_MOST_MS = 1_000;

const announcedLength = (header: string | undefined): number => (header !== undefined && /^\d+$/.test(header) ? Number(header) : Number.POSITIVE_INFINITY);
