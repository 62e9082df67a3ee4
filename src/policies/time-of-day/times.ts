/**
 * Window bounds: "HH:MM" on a 24-hour clock, read once at load as minutes
 * after local midnight. Minutes are enough: every bound is a whole minute,
 * so a request at 07:59:59.999 is at minute 479 and one at 08:00 at minute 480.
 */
export const MINUTES_PER_DAY = 24 * 60;

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;

export type Bound = 'from' | 'to';

/** Minutes after midnight; `24:00` (the end of the day) only as a `to`. */
export function parseTime(text: string, bound: Bound): number | undefined {
  if (bound === 'to' && text === '24:00') return MINUTES_PER_DAY;
  const match = HH_MM.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * 60 + Number(match[2]);
}

export function expectedTime(bound: Bound): string {
  return `expected a time "HH:MM" from "00:00" to "${bound === 'to' ? '24:00' : '23:59'}"`;
}

/**
 * The message for a value YAML did not give as a string. The `yaml` package
 * reads an unquoted 08:00 as a string (YAML 1.2), but a YAML 1.1 reader turns
 * it into the base-60 number 480: say so rather than guess the time back.
 */
export function notATime(input: unknown, bound: Bound): string {
  if (input === undefined) return `is required, like "${bound === 'from' ? '08:00' : '18:00'}"`;
  if (typeof input === 'number') {
    return `${expectedTime(bound)} in quotes, got the number ${input} (a YAML 1.1 reader turns an unquoted 08:00 into 480)`;
  }
  return `${expectedTime(bound)}, got ${JSON.stringify(input) ?? typeof input}`;
}
