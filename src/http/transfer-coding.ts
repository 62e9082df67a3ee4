import { GatewayError } from '../errors/gateway-error.js';

const CLOSE_CONNECTION: Readonly<Record<string, string>> = Object.freeze({ Connection: 'close' });

/**
 * A request body in a transfer coding the gateway does not decode is refused: 501, not 400 MALFORMED_REQUEST
 * (RFC 9112 6.1, catalogue.ts), with the connection closed, since what follows on it is framed in a way the
 * gateway does not take.
 */
export function assertDecodableTransferCoding(codings: string | undefined): void {
  if (codings === undefined || isChunkedAlone(codings)) return;
  throw new GatewayError('UNSUPPORTED_TRANSFER_CODING', { detail: 'a transfer coding other than chunked', headers: CLOSE_CONNECTION });
}

/**
 * Whether a request's Transfer-Encoding is the one coding the gateway reads: `chunked`, alone (any case, spaces and
 * empty list elements allowed, RFC 9110 5.6.1). node's parser accepts `gzip, chunked` (chunked last frames the
 * body) and hands over the body still gzipped, which the gateway would then serve or forward as if it were plain;
 * `chunked, chunked` is a coding applied twice, which RFC 9112 7 forbids and nothing here decodes either.
 * Called only when the header is there: a request without it costs one property read (request-handler.ts).
 */
export function isChunkedAlone(value: string): boolean {
  if (value === 'chunked') return true;
  let codings = 0;
  for (const element of value.split(',')) {
    const coding = element.trim();
    if (coding === '') continue;
    if (coding.toLowerCase() !== 'chunked' || ++codings > 1) return false;
  }
  return codings === 1;
}
