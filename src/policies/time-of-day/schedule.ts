import { DAYS_PER_WEEK } from './days.js';
import { MINUTES_PER_DAY } from './times.js';

/** One window as written, after parsing: days by index (mon = 0), bounds in minutes. */
export interface Window {
  readonly days: readonly number[];
  readonly from: number;
  /** Exclusive; below `from` for a window that runs past midnight. */
  readonly to: number;
}

/** Allowed local minutes of one day, `from` inclusive, `to` exclusive. */
export interface Span {
  readonly from: number;
  readonly to: number;
}

/**
 * The compiled form of all windows: for each local weekday (mon first) the
 * spans of wall-clock minutes when requests pass. No span crosses midnight,
 * so a request only compares two numbers per span of its own day.
 */
export type Schedule = readonly (readonly Span[])[];

export function buildSchedule(windows: readonly Window[]): Schedule {
  const byDay: Span[][] = Array.from({ length: DAYS_PER_WEEK }, () => []);
  for (const window of windows) {
    for (const day of window.days) {
      for (const [onDay, span] of spansOf(day, window)) byDay[onDay]?.push(span);
    }
  }
  return Object.freeze(byDay.map((spans) => Object.freeze(spans)));
}

/**
 * A window that runs past midnight (`from` after `to`) belongs to the day it
 * starts on: `fri 22:00-06:00` is open from friday 22:00 to saturday 06:00,
 * and `sun 22:00-06:00` ends on monday.
 */
function spansOf(day: number, { from, to }: Window): Array<[number, Span]> {
  if (from < to) return [[day, { from, to }]];
  const spans: Array<[number, Span]> = [[day, { from, to: MINUTES_PER_DAY }]];
  if (to > 0) spans.push([(day + 1) % DAYS_PER_WEEK, { from: 0, to }]);
  return spans;
}

export function isOpen(schedule: Schedule, day: number, minute: number): boolean {
  return schedule[day]?.some((span) => span.from <= minute && minute < span.to) ?? false;
}

/** The day's spans as a clock shows them (`08:00-18:00, 22:00-24:00`), for the dry run's reasons. */
export function spansOfDay(schedule: Schedule, day: number): string {
  const spans = schedule[day] ?? [];
  if (spans.length === 0) return 'no window';
  return spans.map((span) => `${clockText(span.from)}-${clockText(span.to)}`).join(', ');
}

const clockText = (minutes: number): string => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
