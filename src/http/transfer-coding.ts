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
