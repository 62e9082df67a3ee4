/**
 * Day names in windows: `mon` … `sun` and forward ranges like `mon-fri`.
 * A day is its index in ISO order (mon = 0, sun = 6), the order the schedule
 * is stored in.
 */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

export const DAYS_PER_WEEK = WEEKDAYS.length;

export type DayEntry = { readonly ok: true; readonly days: readonly number[] } | { readonly ok: false; readonly message: string };

const DAY_OR_RANGE = /^([a-z]+)(?:\s*-\s*([a-z]+))?$/;
const EXPECTED = 'expected a day (mon, tue, wed, thu, fri, sat, sun) or a range like mon-fri';

/**
 * Reads one entry of `days`. Case does not matter (`Mon`, `MON`), because
 * operators copy day names from calendars; no shorthands like `weekdays`,
 * because which days those are differs between countries and `mon-fri` is
 * just as short.
 */
export function parseDayEntry(entry: string): DayEntry {
  const match = DAY_OR_RANGE.exec(entry.trim().toLowerCase());
  const first = dayIndex(match?.[1]);
  if (!match || first === undefined) return { ok: false, message: `${EXPECTED}, got "${entry}"` };
  if (match[2] === undefined) return { ok: true, days: [first] };
  const last = dayIndex(match[2]);
  if (last === undefined) return { ok: false, message: `${EXPECTED}, got "${entry}"` };
  // `mon-mon` could mean one day or the whole week: neither guess is safe.
  if (last === first) {
    return { ok: false, message: `"${entry}" starts and ends on the same day: write "${match[1]}" for one day or a range like mon-sun` };
  }
  return { ok: true, days: walkForward(first, last) };
}

function dayIndex(name: string | undefined): number | undefined {
  const index = WEEKDAYS.findIndex((day) => day === name);
  return index < 0 ? undefined : index;
}

/**
 * Every day from `first` to `last`, wrapping past sunday: `fri-mon` is
 * fri, sat, sun, mon. Walking forward gives the same days whether a reader
 * starts the week on sunday or monday, so `sun-sat` is the whole week either way.
 */
function walkForward(first: number, last: number): number[] {
  const days = [first];
  for (let day = first; day !== last; ) {
    day = (day + 1) % DAYS_PER_WEEK;
    days.push(day);
  }
  return days;
}
