import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Exchange } from '../../src/http/exchange.js';
import { RequestBody } from '../../src/http/request-body.js';

/** An exchange as the pipeline builds one, for a request with these headers, URL and body; nothing is sent anywhere. */
export function fakeExchange(options: { url?: string; headers?: Record<string, string | string[]>; body?: string; clientAddress?: string } = {}): Exchange {
  const req = Object.assign(Readable.from(options.body === undefined ? [] : [Buffer.from(options.body)]), {
    url: options.url ?? '/',
    method: 'POST',
    headers: options.headers ?? {},
    headersDistinct: Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, value]) => [name, Array.isArray(value) ? value : [value]])),
  }) as unknown as IncomingMessage;
  return {
    req,
    // Only what the pipeline sets before an endpoint writes its answer; the headers set are kept in `headers`.
    res: recordingResponse(),
    requestId: 'test-request',
    path: (options.url ?? '/').split('?')[0]!,
    startedAt: process.hrtime.bigint(),
    clientAddress: () => options.clientAddress ?? '198.51.100.7',
    body: new RequestBody(req, 16_384),
    clientId: undefined,
    route: undefined,
    error: undefined,
    forwardedAt: undefined,
    upstreamRespondedAt: undefined,
    onResponseClosed: undefined,
  };
}

/** A response that only records the headers set on it (`res.headers`). */
function recordingResponse(): ServerResponse {
  const headers: Record<string, unknown> = {};
  return { headers, setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = value) } as unknown as ServerResponse;
}
