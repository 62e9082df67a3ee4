import type { IncomingMessage } from 'node:http';
import { formAsObject, isFormContentType, parseForm } from '../../http/form-body.js';
import { contentCodingOf, declaresNonUtf8Charset, isJsonMediaType } from '../../http/negotiate.js';
import type { PolicyRequest } from '../policy.js';
import { describeFinding, scanJson, type BodyScan } from './json-scan.js';
import type { PatternSet } from './pattern-set.js';
import type { Selector } from './selectors.js';

type BodyKind = 'JSON' | 'form';

/** What kind of body a request carries that the policy reads: JSON (any `+json` type too) or a form; else none. */
const kindOf = (req: IncomingMessage): BodyKind | undefined => {
  const contentType = req.headers['content-type'];
  if (isJsonMediaType(contentType)) return 'JSON';
  return isFormContentType(contentType) ? 'form' : undefined;
};

/**
 * True when the body must be read: the policy looks at bodies, and this one
 * is JSON or a form (application/x-www-form-urlencoded). A form is read as
 * its JSON equivalent would be, so that it is no way around the policy on an
 * OAuth endpoint that accepts forms (oauth.form_encoded) or on a route whose
 * upstream takes them.
 */
export const bodyToScan = (req: IncomingMessage, selectors: readonly Selector[]): boolean => selectors.length > 0 && kindOf(req) !== undefined;

/**
 * Tests a JSON body or a form; returns the log detail of a refusal. An
 * empty body passes. A form is tested as an object of its names (tested as
 * keys) and values, decoded once (`+` and percent-escapes, as any server
 * reads it), a repeated name being a list. A body that is not valid JSON is
 * tested whole as text: selectors cannot apply to it, and skipping it would
 * let a malformed body carry an injection to an upstream with a lenient parser.
 */
export async function scanBody(request: PolicyRequest, scan: BodyScan, patterns: PatternSet): Promise<string | undefined> {
  const kind = kindOf(request.req) ?? 'JSON';
  // Compressed bytes cannot be tested without inflating them here, and the
  // upstream will inflate them: letting them through untested would make
  // `Content-Encoding: gzip` a bypass, so such a body fails closed.
  if (contentCodingOf(request.req.headers) !== undefined) return `a content-encoded ${kind} body cannot be tested`;
  if (declaresNonUtf8Charset(request.req.headers['content-type'])) return `a ${kind} body in a charset other than UTF-8 cannot be tested`;
  // Upstream parsers skip a leading byte-order mark; JSON.parse does not, and would send the body to the raw-text path.
  const text = (await request.body.text()).replace(/^\uFEFF/, '');
  // A NUL never occurs in UTF-8 JSON or a form: a UTF-16 body read as UTF-8 would hide every pattern behind them.
  if (text.includes('\u0000')) return `a ${kind} body with NUL bytes (not UTF-8) cannot be tested`;
  if (text.trim().length === 0) return undefined;
  if (kind === 'form') {
    const finding = scanJson(formAsObject(parseForm(text)), scan, patterns);
    return finding ? describeFinding(finding) : undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Tested as written and with JSON's \uXXXX escapes decoded, as a lenient upstream parser would read it.
    const pattern = patterns.firstMatch(text) ?? patterns.firstMatch(text.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))));
    return pattern ? describeFinding({ pattern, where: 'the body (not valid JSON, tested as text)' }) : undefined;
  }
  const finding = scanJson(parsed, scan, patterns);
  return finding ? describeFinding(finding) : undefined;
}
