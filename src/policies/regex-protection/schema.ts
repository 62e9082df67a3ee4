import { z } from '../../config/zod.js';
import { POLICY_NAME } from '../../config/fields.js';
import { policyFields } from '../policy.js';
import { builtinPattern, type NamedPattern, PatternSet, patternSyntaxError } from './pattern-set.js';
import { BUILTIN_NAMES } from './patterns.js';
import { parseSelector, type Selector, WHOLE_BODY } from './selectors.js';

const reserved = new Set<string>(BUILTIN_NAMES);

const operatorPattern = z.strictObject({
  name: z
    .string()
    .regex(POLICY_NAME, 'expected a name of letters, digits, ".", "_" or "-" (at most 64)')
    .refine((name) => !reserved.has(name), 'is the name of a shipped pattern; choose another so logs tell them apart')
    .describe('Named in the log detail when the pattern matches (the matched text never is).'),
  pattern: z
    .string()
    .min(1)
    .superRefine((source, ctx) => {
      const error = patternSyntaxError(source);
      if (error) ctx.addIssue({ code: 'custom', message: error });
    })
    .describe(
      'An RE2 regular expression, found anywhere in the tested text (anchor with ^ and $ for whole values). ' +
        'Lookaround and backreferences are refused: without them matching is linear, so no input can stall the gateway.',
    ),
  case_sensitive: z.boolean().default(false).describe('Match letter case exactly; by default `SELECT` and `select` are the same.'),
});

// A union of `all | none | [selectors]` would report a bad selector as zod's
// bare "Invalid input"; checking the shape first and parsing the selectors in a
// transform keeps re2js-style precise messages at the selector's own index.
const jsonBodyChoice = z.union([z.enum(['all', 'none']), z.array(z.string())], {
  error: 'expected all, none or a list of selectors',
});

/** One shape for the check: `all` is the selector `$`, `none` no selector at all. Parsed here, once. */
function compileJsonBody(choice: z.output<typeof jsonBodyChoice>, ctx: z.RefinementCtx): readonly Selector[] {
  if (choice === 'all') return [WHOLE_BODY];
  if (choice === 'none') return [];
  if (choice.length === 0) ctx.addIssue({ code: 'custom', message: 'list at least one selector, or write none' });
  const selectors: Selector[] = [];
  choice.forEach((source, index) => {
    const parsed = parseSelector(source);
    if ('error' in parsed) ctx.addIssue({ code: 'custom', path: [index], message: `invalid selector "${source}": ${parsed.error}` });
    else selectors.push(parsed.selector);
  });
  return selectors;
}

const applyTo = z.strictObject({
  path: z.boolean().default(true).describe('Test the request path, percent-decoded once.'),
  query: z.boolean().default(true).describe('Test every query parameter name and value, decoded.'),
  query_params: z
    .array(z.string().min(1, 'expected a query parameter name'))
    .default([])
    .transform((names) => [...new Set(names)])
    .describe(
      'Query parameters tested by name (exact, letter case included): every value of each, decoded; ' +
        'their names and the other parameters are not tested (Apigee\'s <QueryParam name="...">). Independent of `query`.',
    ),
  headers: z
    .array(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'expected an HTTP header name'))
    .default([])
    .transform((names) => [...new Set(names.map((name) => name.toLowerCase()))])
    .describe(
      'Headers to test, each value separately when sent more than once. None by default: ' +
        'User-Agent, Cookie and Accept carry free text that would refuse ordinary clients.',
    ),
  json_body: jsonBodyChoice
    .default('all')
    .transform(compileJsonBody)
    .describe(
      'JSON bodies (application/json or any +json type) and forms (application/x-www-form-urlencoded, read as an object of ' +
        'names to values, a repeated name as a list): `all` tests every string value and object key, `none` skips the body, ' +
        "or a list of selectors ($, .key, ['key'], [n], [*], .*) tests what each selects, keys and values beneath included.",
    ),
  json_text: z
    .boolean()
    .default(false)
    .describe(
      'Test each node a json_body selector picks as one text: a string as its value, anything else (object, array, number, ' +
        'true, false, null) as its compact JSON text, as Apigee\'s JSONPayload does. Off: the keys and string values beneath it.',
    ),
});

export const regexProtectionSchema = z
  .strictObject({
    ...policyFields('regex-protection'),
    builtin: z
      .array(z.enum(BUILTIN_NAMES))
      .default([...BUILTIN_NAMES])
      .describe('Shipped patterns to apply, all by default; [] to apply only your own `patterns` (then at least one is needed: `builtin: []` with no `patterns` is refused at load with `policies[0].patterns: nothing to test: keep a builtin or add a pattern`).'),
    patterns: z.array(operatorPattern).default([]).describe("The operator's own patterns, tested after the shipped ones."),
    apply_to: applyTo.prefault({}).describe('Which parts of the request are tested; the body is read only when needed.'),
  })
  .superRefine((settings, ctx) => {
    reportRepeats(settings.builtin, (index) => ['builtin', index], ctx);
    reportRepeats(settings.patterns.map(({ name }) => name), (index) => ['patterns', index, 'name'], ctx);
    if (settings.builtin.length === 0 && settings.patterns.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['patterns'], message: 'nothing to test: keep a builtin or add a pattern' });
    }
    const { path, query, query_params, headers, json_body, json_text } = settings.apply_to;
    if (!path && !query && query_params.length === 0 && headers.length === 0 && json_body.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['apply_to'], message: 'tests no part of the request: enable path, query, query_params, headers or json_body' });
    }
    if (json_text && json_body.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['apply_to', 'json_text'], message: 'has no effect with json_body: none' });
    }
  })
  .transform((settings, ctx) => {
    const named: NamedPattern[] = [
      ...settings.builtin.map(builtinPattern),
      ...settings.patterns.map(({ name, pattern, case_sensitive }) => ({ name, source: pattern, caseSensitive: case_sensitive })),
    ];
    try {
      return { ...settings, patternSet: new PatternSet(named) };
    } catch (error) {
      // Each pattern compiled alone; only their sum can exceed RE2's program size.
      ctx.addIssue({ code: 'custom', path: ['patterns'], message: error instanceof Error ? error.message : String(error) });
      return z.NEVER;
    }
  });

function reportRepeats(names: readonly string[], pathOf: (index: number) => PropertyKey[], ctx: z.RefinementCtx): void {
  names.forEach((name, index) => {
    if (names.indexOf(name) !== index) ctx.addIssue({ code: 'custom', path: pathOf(index), message: `"${name}" is listed twice` });
  });
}

export type RegexProtectionSettings = z.output<typeof regexProtectionSchema>;
