import { GatewayError } from '../errors/gateway-error.js';

// A separator or dot still percent-encoded after one decoding: double encoding.
const DOUBLE_ENCODED = /%(2e|2f|5c|00)/i;

/**
 * The path routes are matched on: the request path decoded once, segment by
 * segment. The raw path is forwarded unchanged, so it must mean the same thing
 * to the upstream as to our route table. Refused, because some upstream
 * resolves each to another path than the one routed (docs/upstreams.md):
 * - dot segments (also Tomcat's `..;x`), which every upstream resolves;
 * - empty segments (`//`), which nginx and many frameworks merge;
 * - `;` parameters on any segment (also `%3B`), which Tomcat and Spring
 *   strip, so `/admin;x/` is `/admin/` to them;
 * - `#`, which ends the path for an upstream that parses the target as a URL;
 * - encoded separators, double encoding and broken percent-encoding.
 * Refused rather than normalised (Spring Security's StrictHttpFirewall does
 * the same): a normalised path forwarded in place of the client's would be a
 * different request from the one signed, logged and traced; a refused one is
 * visible, and no real client sends these spellings.
 */
export function routingPathOf(path: string): string {
  // Nearly every real path has nothing to decode and no suspicious segment: it is its own routing path.
  if (!NEEDS_A_CLOSER_LOOK.test(path)) return path;
  if (path.includes('#')) throw refuse('fragment in path');
  const segments = path.split('/');
  // The last segment may be empty: `/business/score/v2/` is a path, not an empty segment.
  for (let i = 1; i < segments.length - 1; i++) if (segments[i] === '') throw refuse('empty segment in path');
  return segments.map(decodeSegment).join('/');
}

// A percent sign, a parameter (`..;x`), a backslash, a fragment, an empty or a `.`/`..` segment: the slow path decides.
const NEEDS_A_CLOSER_LOOK = /[%;\\#]|\/\/|(?:^|\/)\.\.?(?:\/|$)/;

function decodeSegment(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw refuse('invalid percent-encoding in path');
  }
  const beforeParameters = decoded.split(';')[0];
  if (beforeParameters === '.' || beforeParameters === '..') throw refuse('dot segment in path');
  if (decoded.includes(';')) throw refuse('parameter (;) in path segment');
  if (/[/\\\0]/.test(decoded)) throw refuse('encoded separator in path');
  if (DOUBLE_ENCODED.test(decoded)) throw refuse('double-encoded path');
  return decoded;
}

const refuse = (detail: string) => new GatewayError('MALFORMED_REQUEST', { detail });
