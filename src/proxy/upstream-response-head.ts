import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { hopByHopOf } from './upstream-request-headers.js';

/*
 * An upstream's answer is untrusted input. undici's parser accepts heads
 * that node's ServerResponse refuses to write (a reason phrase with a control
 * character or a character above U+00FF, a header value node rejects), and
 * node throws from `writeHead`, leaving the refused reason phrase on the
 * response, where our own 502 would throw again. So a head is checked
 * (status and reason phrase here; header names and values by node's own
 * writeHead, which validates every pair it appends) and written only when
 * the first byte of the body (or its end) is: until then nothing has reached
 * the client, and any failure (a refused head, a body shorter than
 * announced) can still be answered with a well-formed 502. Node sends a head
 * with the first body chunk anyway, so the client sees no difference in
 * timing. The headers are validated once, by node, not also by us first: the
 * second pass over every header was about 0.4 µs of a protected call's
 * profile (bench/results/2026-11-24-stage-budget.md's build).
 */

/**
 * A head that node will write: the status, the reason phrase, and the
 * headers as a flat `[name, value, ...]` list, a repeated header's values as
 * one array (node's writeHead sets each pair in turn, so a second pair of the
 * same name would replace the first).
 */
export interface ResponseHead {
  readonly statusCode: number;
  readonly statusMessage: string | undefined;
  readonly headers: ReadonlyArray<string | string[]>;
}

/** Why a head cannot be relayed, for the log line; never shown to the client. */
export type RelayProblem = string;

// node's own test for a reason phrase (the same as for header values): HTAB, SP, VCHAR and obs-text only.
const INVALID_REASON_CHARACTER = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * The upstream's status, reason phrase and headers (repeated ones such as
 * Set-Cookie kept apart) minus hop-by-hop ones, then the gateway's own
 * X-Request-Id, or why node could not write the status line. The upstream's
 * X-Request-Id is dropped: it cannot replace the id the client is told.
 *
 * The id is written in the head's list rather than set on the response
 * beforehand (as the gateway's own answers do): a response with a header set
 * by `setHeader` takes node's slower writeHead, which sets every relayed
 * header one by one before composing the head (about 0.6 µs a call in a
 * micro-benchmark; bench/README.md, "What changed").
 */
export function responseHeadOf(statusCode: number, statusMessage: string | undefined, headers: IncomingHttpHeaders, requestId: string): ResponseHead | RelayProblem {
  if (!Number.isInteger(statusCode) || statusCode < 200 || statusCode > 999) return `status code ${statusCode} cannot be relayed`;
  if (statusMessage && INVALID_REASON_CHARACTER.test(statusMessage)) return 'invalid character in the reason phrase';
  const isHopByHop = hopByHopOf(headers);
  const list: Array<string | string[]> = [];
  for (const name in headers) {
    if (isHopByHop(name) || name === 'x-request-id') continue;
    // RFC 9110 8.6: never in a 204; relaying it would announce a body the client must not wait for.
    if (statusCode === 204 && name === 'content-length') continue;
    const value = headers[name];
    if (value !== undefined) list.push(name, value);
  }
  list.push('x-request-id', requestId);
  return { statusCode, statusMessage: statusMessage || undefined, headers: list };
}

/**
 * Writes a head made by responseHeadOf. Node refuses a header name or value
 * it will not send (ERR_INVALID_CHAR, ERR_INVALID_HTTP_TOKEN) by throwing
 * before anything is sent; undici's parser already refuses every such head
 * we know of (a control character in a value, a space in a name: the
 * response-head tests), so this is the net behind it. The head is then
 * undone completely (node keeps a refused reason phrase and the headers
 * appended before the bad one otherwise) and the problem returned. Found
 * here, such a head is found when it is written, at the first body byte or
 * the end: an upstream that sent one and then stalled would get the route's
 * 504 rather than an immediate 502.
 */
export function writeResponseHead(res: ServerResponse, head: ResponseHead): RelayProblem | undefined {
  try {
    if (head.statusMessage) res.writeHead(head.statusCode, head.statusMessage, head.headers as Array<string | string[]>);
    else res.writeHead(head.statusCode, head.headers as Array<string | string[]>);
    return undefined;
  } catch (error) {
    if (res.headersSent) throw error; // node validates before it composes the head; never hide it if that changes
    undoRefusedHead(res);
    return `upstream response head cannot be written: ${(error as NodeJS.ErrnoException).code ?? 'invalid'}`;
  }
}

/**
 * Back to the state before the relay: no upstream header, no upstream reason
 * phrase (the 502 that follows sets its own headers, X-Request-Id included).
 * node keeps no header of a list it refused while nothing was set before;
 * the loop is for a response that had some.
 */
function undoRefusedHead(res: ServerResponse): void {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  // writeHead stores the reason phrase before validating it, and a later writeHead without one reuses it.
  res.statusMessage = '';
}
