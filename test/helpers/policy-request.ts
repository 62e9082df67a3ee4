import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { RequestBody } from '../../src/http/request-body.js';
import type { PolicyRequest } from '../../src/policies/policy.js';

export interface PolicyRequestInit {
  method?: string;
  /** Decoded path; default /business/score/v2/directors. */
  path?: string;
  /** Raw query string without "?", e.g. "a=1&b=%27". */
  query?: string;
  headers?: Record<string, string>;
  /** The body, as the chunks it arrives in. */
  body?: Array<string | Buffer>;
  bodyLimit?: number;
  clientAddress?: string;
  clientId?: string;
  user?: string;
  /** clientId() and user() answer at once, as for a token verified before; otherwise through a promise, as for a new one. */
  callerKnown?: boolean;
}

/**
 * A PolicyRequest for unit tests of one check: a real Readable stands in for
 * the socket, so RequestBody streams it chunk by chunk as it would a request.
 * HTTP-level behaviour is tested against a real gateway (test/policies/*.http.test.ts).
 */
export function policyRequest(init: PolicyRequestInit = {}): PolicyRequest & { readonly chunksRead: () => number } {
  let chunksRead = 0;
  const chunks = (init.body ?? []).map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  const stream = Readable.from(
    (function* () {
      for (const chunk of chunks) {
        chunksRead++;
        yield chunk;
      }
    })(),
    { objectMode: false },
  );
  const headers = Object.fromEntries(Object.entries(init.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const req = Object.assign(stream, {
    method: init.method ?? (chunks.length > 0 ? 'POST' : 'GET'),
    url: `${init.path ?? '/business/score/v2/directors'}${init.query ? `?${init.query}` : ''}`,
    headers,
    headersDistinct: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
  }) as unknown as IncomingMessage;
  return {
    req,
    path: init.path ?? '/business/score/v2/directors',
    query: new URLSearchParams(init.query ?? ''),
    clientAddress: init.clientAddress ?? '127.0.0.1',
    body: new RequestBody(req, init.bodyLimit ?? 1024 * 1024),
    clientId: init.callerKnown ? () => init.clientId : async () => init.clientId,
    user: init.callerKnown ? () => init.user : async () => init.user,
    chunksRead: () => chunksRead,
  };
}
