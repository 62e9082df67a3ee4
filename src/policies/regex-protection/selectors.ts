/**
 * The JSONPath subset that `apply_to.json_body` accepts: `$`, `.key`,
 * `['key']` / `["key"]`, `[n]`, `[*]` and `.*`. Recursive descent (`..`),
 * filters and slices are refused at load rather than half-supported: an
 * operator who writes them expects coverage this policy would not give.
 */

export type Segment =
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'any' };

export interface Selector {
  /** As written, for messages. */
  readonly source: string;
  readonly segments: readonly Segment[];
}

/** `$`: what `json_body: all` means. */
export const WHOLE_BODY: Selector = Object.freeze({ source: '$', segments: Object.freeze([]) });

export type ParsedSelector = { readonly selector: Selector } | { readonly error: string };

const NAME = /^[A-Za-z_$][\w$-]*/;
const INDEX = /^\[(\d{1,9})\]/;

export function parseSelector(source: string): ParsedSelector {
  if (!source.startsWith('$')) return { error: 'must start with "$" (the whole body)' };
  const segments: Segment[] = [];
  let at = 1;
  while (at < source.length) {
    const step = parseSegment(source.slice(at));
    if ('error' in step) return { error: `at character ${at + 1}: ${step.error}` };
    segments.push(step.segment);
    at += step.length;
  }
  return { selector: Object.freeze({ source, segments: Object.freeze(segments) }) };
}

type ParsedSegment = { readonly segment: Segment; readonly length: number } | { readonly error: string };

function parseSegment(rest: string): ParsedSegment {
  if (rest.startsWith('..')) return { error: 'recursive descent ("..") is not supported; use "json_body: all" or list the paths' };
  if (rest.startsWith('.*')) return { segment: { kind: 'any' }, length: 2 };
  if (rest.startsWith('[*]')) return { segment: { kind: 'any' }, length: 3 };
  if (rest.startsWith('.')) {
    const name = NAME.exec(rest.slice(1))?.[0];
    if (!name) return { error: 'expected a key name after "." (use [\'...\'] for other characters)' };
    return { segment: { kind: 'key', key: name }, length: 1 + name.length };
  }
  const index = INDEX.exec(rest);
  if (index?.[1] !== undefined) return { segment: { kind: 'index', index: Number(index[1]) }, length: index[0].length };
  if (rest.startsWith("['") || rest.startsWith('["')) return parseQuotedKey(rest);
  if (rest.startsWith('[')) return { error: 'expected [n], [*], [\'key\'] or ["key"] (no filters, slices or negative indexes)' };
  return { error: `unexpected "${rest.charAt(0)}"; expected ".key", ".*", or a [...] segment` };
}

/** `['a.b']` or `["it's"]`; a backslash escapes the next character. */
function parseQuotedKey(rest: string): ParsedSegment {
  const quote = rest.charAt(1);
  let key = '';
  for (let at = 2; at < rest.length; at++) {
    const char = rest.charAt(at);
    if (char === '\\') {
      at++;
      if (at >= rest.length) break;
      key += rest.charAt(at);
    } else if (char === quote) {
      if (rest.charAt(at + 1) !== ']') return { error: `expected "]" after the closing ${quote}` };
      return { segment: { kind: 'key', key }, length: at + 2 };
    } else {
      key += char;
    }
  }
  return { error: `unterminated ${quote}-quoted key` };
}
