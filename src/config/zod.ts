import { z } from 'zod';

/**
 * zod, with the messages an operator reads from `token-gateway check` in our
 * words: every schema of gateway.yaml, accounts.yaml and the policy files
 * imports `z` from here (test/architecture.test.ts keeps it so), so no bare
 * zod wording (`Too big: expected number to be <=65535`, `Invalid input`)
 * reaches the operator. A message a schema gives itself still wins; an issue
 * this map does not know keeps zod's own message.
 */
z.config({ customError: issueMessage });

export { z };

type RawIssue = z.core.$ZodRawIssue;

function issueMessage(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      // The kind of value, not the value: a number where accounts.yaml wants a hash may be the secret itself.
      return issue.input === undefined ? `required: expected ${typeName(issue.expected)}` : `expected ${typeName(issue.expected)}, got ${kindText(issue.input)}`;
    case 'invalid_value':
      return issue.input === undefined
        ? `required: expected ${alternatives(issue.values.map(literalText))}`
        : `expected ${alternatives(issue.values.map(literalText))}, got ${valueText(issue.input)}`;
    case 'too_big':
      return `${boundText('at most', 'less than', issue.maximum, issue.inclusive, issue.origin)}, got ${sizeOf(issue.input, issue.origin)}`;
    case 'too_small':
      return `${boundText('at least', 'more than', issue.minimum, issue.inclusive, issue.origin)}, got ${sizeOf(issue.input, issue.origin)}`;
    case 'invalid_union':
      return unionMessage(issue);
    default:
      return undefined;
  }
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping (key: value lines)',
  null: 'nothing',
};

const typeName = (expected: string): string => TYPE_NAMES[expected] ?? expected;

function kindText(input: unknown): string {
  if (input === null) return 'nothing (null)';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'a mapping';
  if (typeof input === 'boolean') return 'true or false';
  return `a ${typeof input}`;
}

/**
 * What the operator wrote, where it is a word the key did not take (an enum's
 * misspelling, a number where a duration goes), shortened: enough to find it,
 * never a whole secret-sized value.
 */
export function valueText(input: unknown): string {
  if (input === undefined) return 'nothing';
  if (input === null) return 'nothing (null)';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'a mapping';
  if (typeof input === 'string') return input.length > 40 ? `a string of ${input.length} characters` : JSON.stringify(input);
  return String(input);
}

/**
 * The `error` of a schema that words its own expectation (`expected a duration like ...`): a key
 * the file leaves out is `required: <expectation>`, as zod's own missing keys are, never `got undefined`.
 */
export const expecting =
  (expected: string) =>
  (issue: { readonly input?: unknown }): string =>
    issue.input === undefined ? `required: ${expected}` : `${expected}, got ${valueText(issue.input)}`;

const literalText = (value: unknown): string => (typeof value === 'string' ? value : String(value));

function alternatives(values: readonly string[]): string {
  if (values.length === 1) return values[0] as string;
  return `one of ${values.join(', ')}`;
}

const SIZED: Readonly<Record<string, (n: number) => string>> = {
  string: (n) => `${n} ${n === 1 ? 'character' : 'characters'}`,
  array: (n) => `${n} ${n === 1 ? 'entry' : 'entries'}`,
  set: (n) => `${n} ${n === 1 ? 'entry' : 'entries'}`,
};

function boundText(inclusiveWord: string, exclusiveWord: string, bound: unknown, inclusive: boolean | undefined, origin: string): string {
  const word = inclusive === false ? exclusiveWord : inclusiveWord;
  const sized = SIZED[origin];
  return `must be ${sized ? `${word} ${sized(Number(bound))}` : `${word} ${String(bound)}`}`;
}

function sizeOf(input: unknown, origin: string): string {
  const sized = SIZED[origin];
  if (sized && (typeof input === 'string' || Array.isArray(input))) return sized(input.length);
  if (sized && input instanceof Set) return sized(input.size);
  return valueText(input);
}

/** A union of simple forms (`auto` or a number) says which forms it takes; one whose branch went deeper gives that branch's problem. */
function unionMessage(issue: Extract<RawIssue, { code: 'invalid_union' }>): string | undefined {
  const branches = 'errors' in issue ? issue.errors : [];
  const forms: string[] = [];
  for (const branch of branches) {
    const [first] = branch;
    if (branch.length !== 1 || !first || first.path.length > 0) return undefined;
    if (first.code === 'invalid_type') forms.push(typeName(first.expected));
    else if (first.code === 'invalid_value') forms.push(...first.values.map(literalText));
    else return undefined;
  }
  if (forms.length === 0) return undefined;
  return `expected ${forms.join(' or ')}, got ${typeof issue.input === 'string' || typeof issue.input === 'number' ? valueText(issue.input) : kindText(issue.input)}`;
}
