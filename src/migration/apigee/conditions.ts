/**
 * The flow conditions a route or an endpoint can express: a path under the
 * proxy's base path. Our routes are prefixes on segment boundaries
 * (`/base/x` serves `/base/x` and everything under it) and our endpoints are
 * exact paths; a condition on anything else (the verb, a header, a regular
 * expression) has no expression and is reported.
 */
export type PathCondition =
  /** `MatchesPath "/x/**"`: everything under /x, and (`withBase`) /x itself when the condition also says so. */
  | { readonly kind: 'under'; readonly suffix: string; readonly withBase: boolean }
  /** `MatchesPath "/x"` or `= "/x"`: that path alone. */
  | { readonly kind: 'exactly'; readonly suffix: string };

const PATH_TEST = /^\(?\s*proxy\.pathsuffix\s+(MatchesPath|~\/|=|==|Equals|equals|Is|is)\s+"([^"]*)"\s*\)?$/;
const LITERAL = /^(?:\/[A-Za-z0-9._~!$&'()+,;=:@%-]+)*$/;

function single(text: string): PathCondition | undefined {
  const match = PATH_TEST.exec(text.trim());
  if (!match) return undefined;
  const [, operator, pattern] = match as unknown as [string, string, string];
  const matchesPath = operator === 'MatchesPath' || operator === '~/';
  const trimmed = pattern.replace(/\/+$/, '');
  if (matchesPath && trimmed.endsWith('/**')) {
    const suffix = trimmed.slice(0, -3);
    return LITERAL.test(suffix) ? { kind: 'under', suffix, withBase: false } : undefined;
  }
  return LITERAL.test(trimmed) ? { kind: 'exactly', suffix: trimmed } : undefined;
}

/** Reads a flow's <Condition>; undefined when it is not a path condition we can express. */
export function parsePathCondition(text: string): PathCondition | undefined {
  const alternatives = text.trim().replace(/^\((.*)\)$/s, (whole, inner: string) => (balanced(inner) ? inner : whole)).split(/\s+(?:or|OR|\|\|)\s+/);
  if (alternatives.length === 1) return single(alternatives[0] as string);
  if (alternatives.length !== 2) return undefined;
  const [a, b] = alternatives.map(single);
  // `/x` or `/x/**`: exactly a prefix route.
  for (const [one, other] of [[a, b], [b, a]] as const) {
    if (one?.kind === 'exactly' && other?.kind === 'under' && one.suffix === other.suffix) return { kind: 'under', suffix: one.suffix, withBase: true };
  }
  return undefined;
}

function balanced(text: string): boolean {
  let depth = 0;
  for (const char of text) {
    if (char === '(') depth++;
    if (char === ')' && --depth < 0) return false;
  }
  return depth === 0;
}
