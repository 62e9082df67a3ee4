import { GatewayError } from '../errors/gateway-error.js';

// A separator or dot still percent-encoded after one decoding: double encoding.
const DOUBLE_ENCODED = /%(2e|2f|5c|00)/i;

/**
 * The path routes are matched on: the request path decoded once, segment by
 * segment. The raw path is forwarded unchanged, so it must mean the same thing
 * to the upstream as to our route table: dot segments (also Tomcat's `..;x`),
 * encoded separators and double encoding, which an upstream may resolve to a
 * path outside the route's prefix, are refused.
 */
export function routingPathOf(path: string): string {
  // Nearly every real path has nothing to decode and no dot segment: it is its own routing path.
  if (!NEEDS_DECODING.test(path)) return path;
  return path.split('/').map(decodeSegment).join('/');
}

// A percent sign, a parameter (`..;x`), a backslash, or a `.`/`..` segment: the slow path decides.
const NEEDS_DECODING = /[%;\\]|(?:^|\/)\.\.?(?:\/|$)/;

function decodeSegment(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw refuse('invalid percent-encoding in path');
  }
  const beforeParameters = decoded.split(';')[0];
  if (beforeParameters === '.' || beforeParameters === '..') throw refuse('dot segment in path');
  if (/[/\\\0]/.test(decoded)) throw refuse('encoded separator in path');
  if (DOUBLE_ENCODED.test(decoded)) throw refuse('double-encoded path');
  return decoded;
}

const refuse = (detail: string) => new GatewayError('MALFORMED_REQUEST', { detail });
