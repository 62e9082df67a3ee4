import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';

export type MediaFormat = 'json' | 'xml';

const XML_TYPES = new Set(['application/xml', 'text/xml']);
const JSON_TYPES = new Set(['application/json', 'application/*', '*/*']);

/**
 * SPEC 4.3: Accept may ask for application/json or application/xml. JSON is the
 * default; XML is chosen only when the client prefers it (by q-value), so a
 * browser's `*\/*` or a missing header gets JSON.
 */
export function preferredFormat(req: IncomingMessage): MediaFormat {
  const accept = req.headers.accept;
  if (!accept) return 'json';
  let xmlQ = 0;
  let jsonQ = 0;
  for (const range of accept.split(',')) {
    const [rawType = '', ...params] = range.split(';');
    const type = rawType.trim().toLowerCase();
    const q = qualityOf(params);
    if (XML_TYPES.has(type)) xmlQ = Math.max(xmlQ, q);
    else if (JSON_TYPES.has(type)) jsonQ = Math.max(jsonQ, q);
  }
  return xmlQ > jsonQ ? 'xml' : 'json';
}

function qualityOf(params: string[]): number {
  for (const param of params) {
    const [name, value] = param.split('=');
    if (name?.trim().toLowerCase() === 'q') {
      const q = Number(value);
      return Number.isFinite(q) ? q : 0;
    }
  }
  return 1;
}

/** True for `application/json`, with or without parameters such as `; charset=utf-8`. */
export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json';
}

// RFC 6839 section 3.1: `+json` types (merge-patch, problem, vnd.*) are JSON too.
const STRUCTURED_JSON = /^application\/[a-z0-9!#$&^_.+-]+\+json$/;

/**
 * RFC 8259 8.1: JSON exchanged between systems is UTF-8. A body declared in
 * another charset (utf-16le) would be read by the policies as one thing and
 * by a lenient upstream as another, so the body policies refuse it.
 */
export function declaresNonUtf8Charset(value: string | undefined): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(value ?? '')?.[1]?.toLowerCase();
  return charset !== undefined && charset !== 'utf-8' && charset !== 'utf8';
}

/**
 * The body's declared content coding (RFC 9110 8.4), lower-cased, when it is
 * one other than `identity`: bytes that read as something else once inflated.
 * Nothing in the gateway inflates a body, so whatever reads one refuses it.
 */
export function contentCodingOf(headers: IncomingHttpHeaders): string | undefined {
  const coding = headers['content-encoding']?.trim().toLowerCase();
  return coding && coding !== 'identity' ? coding : undefined;
}

/**
 * Content-Type is one media type (RFC 9110 8.3). Two Content-Type lines arrive joined (the listeners join
 * duplicates), and one line may list types itself: `application/json, text/plain` is JSON to an upstream that
 * cuts the value at a comma (Rack does) and no JSON at all to the body policies, which would then leave the body
 * unread. So a list is refused before any policy runs. A comma inside a parameter (`boundary="a,b"`) is not a list.
 * One `includes` per request with a body.
 */
export function assertOneMediaType(contentType: string | undefined): void {
  if (contentType === undefined || !contentType.includes(',')) return;
  const semicolon = contentType.indexOf(';');
  const mediaType = semicolon < 0 ? contentType : contentType.slice(0, semicolon);
  if (mediaType.includes(',')) throw new GatewayError('MALFORMED_REQUEST', { detail: 'Content-Type names more than one media type' });
}

/**
 * application/json or any `+json` type: what the body policies inspect, so a
 * client cannot carry a body past them by renaming its media type. (The token
 * endpoints keep to SPEC 4.3's application/json.)
 */
export function isJsonMediaType(value: string | undefined): boolean {
  if (isJsonContentType(value)) return true;
  const type = value?.split(';')[0]?.trim().toLowerCase();
  return type !== undefined && STRUCTURED_JSON.test(type);
}
