import { createHash } from 'node:crypto';
import { POLICY_NAME } from '../../config/fields.js';

const MAX = 64;

/**
 * A policy or pattern name our files accept (letters, digits, ".", "_", "-",
 * at most 64) from an Apigee name, which may hold spaces and run to 255
 * characters. A name kept as written stays readable; one that had to change
 * (a character replaced or trimmed) or is too long keeps its start and a
 * short hash of the whole, so that two Apigee names stay two names: "SA Bulk"
 * and "SA-Bulk" are both valid in Apigee, and our policy names must be unique
 * across the policies folder.
 */
export function ourName(...parts: readonly string[]): string {
  const cleaned = parts.map((part) => part.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[-_.]+|-+$/g, ''));
  const joined = cleaned.filter((part) => part !== '').join('.');
  const name = /^[A-Za-z0-9]/.test(joined) ? joined : `p${joined}`;
  const changed = cleaned.some((part, index) => part !== parts[index] || part === '');
  if (!changed && name.length <= MAX && POLICY_NAME.test(name)) return name;
  const hash = createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX - 9).replace(/[-_.]+$/, '')}-${hash}`;
}

/** A duration of whole milliseconds as our config writes it: the largest unit that is exact. */
export function durationText(ms: number): string {
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1_000]] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
