import { isDeepStrictEqual } from 'node:util';
import { parseDocument } from 'yaml';

/** Replace the original text [start, end) with `text`; an insertion when start === end. */
export interface TextPatch {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export type ScalarStyle = 'plain' | 'double' | 'single';

/** Applies patches that point into the same original text; insertions at one offset keep their order. */
export function applyPatches(text: string, patches: readonly TextPatch[]): string {
  const lastFirst = patches.map((patch, index) => ({ patch, index })).sort((a, b) => b.patch.start - a.patch.start || b.index - a.index);
  return lastFirst.reduce((out, { patch }) => out.slice(0, patch.start) + patch.text + out.slice(patch.end), text);
}

// Plain only when no YAML reader (1.1 or 1.2, block or flow context) could take it for anything but this string.
const PLAIN_SAFE = /^[A-Za-z_][\w.@/+=-]*$/;
const YAML_KEYWORD = /^(true|false|null|yes|no|on|off|y|n)$/i;

/** The YAML text of a string scalar in the given style; a plain scalar that would be ambiguous is double-quoted. */
export function scalarText(value: string, style: ScalarStyle = 'plain'): string {
  if (style === 'single') return `'${value.replaceAll("'", "''")}'`;
  if (style === 'plain' && PLAIN_SAFE.test(value) && !YAML_KEYWORD.test(value)) return value;
  // JSON's escapes are all valid in a YAML double-quoted scalar.
  return JSON.stringify(value);
}

/** True when `text` is YAML without errors whose data is exactly `expected`. */
export function parsesTo(text: string, expected: unknown): boolean {
  const document = parseDocument(text, { uniqueKeys: true });
  return document.errors.length === 0 && isDeepStrictEqual(document.toJS(), expected);
}
