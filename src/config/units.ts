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

const SIZE = /^(\d+)(b|kb|mb)$/i;
const SIZE_BYTES: Record<string, number> = { b: 1, kb: 1024, mb: 1024 * 1024 };

export function parseSize(text: string): number | undefined {
  const match = SIZE.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * (SIZE_BYTES[(match[2] as string).toLowerCase()] as number);
}
