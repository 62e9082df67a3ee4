/**
 * Durations are written like `500ms`, `2s`, `30m`, `24h`, `7d`; sizes like
 * `512b`, `16kb`, `1mb` (binary multiples). One unit per value keeps YAML
 * readable and parsing unambiguous.
 */
const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const DURATION_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * (DURATION_MS[match[2] as string] as number);
}

/** A duration as the YAML would write it: the largest unit that divides it (`60000` is `1m`, `1500` is `1500ms`). */
export function durationText(ms: number): string {
  for (const [unit, size] of DURATION_UNITS_LARGEST_FIRST) if (ms !== 0 && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

const DURATION_UNITS_LARGEST_FIRST: ReadonlyArray<readonly [string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
];

const SIZE = /^(\d+)(b|kb|mb)$/i;
const SIZE_BYTES: Record<string, number> = { b: 1, kb: 1024, mb: 1024 * 1024 };

export function parseSize(text: string): number | undefined {
  const match = SIZE.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * (SIZE_BYTES[(match[2] as string).toLowerCase()] as number);
}
