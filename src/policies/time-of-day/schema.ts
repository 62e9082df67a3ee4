import { z } from '../../config/zod.js';
import { policyFields } from '../policy.js';
import { parseDayEntry } from './days.js';
import { buildSchedule } from './schedule.js';
import { expectedTime, notATime, parseTime, type Bound } from './times.js';
import { zoneProblem } from './wall-clock.js';

export const TIME_OF_DAY_DEFAULTS = Object.freeze({
  /** SPEC 2.1 states the service clock in US Central time; America/Chicago also follows its daylight saving. */
  time_zone: 'America/Chicago',
});

const EXAMPLE_WINDOW = '{ days: [mon-fri], from: "08:00", to: "18:00" }';

const timeZone = z
  .string()
  .trim()
  .superRefine((zone, ctx) => {
    const problem = zoneProblem(zone);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .prefault(TIME_OF_DAY_DEFAULTS.time_zone);

const dayEntry = z.string({ error: 'expected a day name like mon or a range like mon-fri' }).transform((entry, ctx) => {
  const parsed = parseDayEntry(entry);
  if (parsed.ok) return parsed.days;
  ctx.addIssue({ code: 'custom', message: parsed.message });
  return z.NEVER;
});

const days = z
  .array(dayEntry, { error: 'expected a list of days like [mon-fri] or [sat, sun]' })
  .min(1, 'list at least one day, like [mon-fri]')
  // Overlapping entries (`[mon-fri, wed]`) are harmless: the days are a set.
  .transform((entries) => [...new Set(entries.flat())].sort((a, b) => a - b));

const clockTime = (bound: Bound) =>
  z.string({ error: (issue) => notATime(issue.input, bound) }).transform((text, ctx) => {
    const minutes = parseTime(text.trim(), bound);
    if (minutes !== undefined) return minutes;
    ctx.addIssue({ code: 'custom', message: `${expectedTime(bound)}, got "${text}"` });
    return z.NEVER;
  });

const window = z
  .strictObject({
    days: days.describe('Local weekdays the window opens on: mon … sun or ranges like mon-fri and fri-mon, any case.'),
    from: clockTime('from').describe('Local time the window opens, "HH:MM" from "00:00" to "23:59"; a request at exactly this minute passes.'),
    to: clockTime('to').describe(
      'Local time the window closes, "HH:MM" up to "24:00", exclusive. Earlier than `from`: the window runs past midnight into the next day.',
    ),
  })
  .superRefine((window, ctx) => {
    // Equal bounds could mean "never" or "all day"; 00:00 to 24:00 says all day without guessing.
    if (window.from === window.to) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'equals from: for the whole day write from: "00:00" and to: "24:00"' });
    }
  });

export const timeOfDaySchema = z.strictObject({
  ...policyFields('time-of-day'),
  time_zone: timeZone.describe(
    `IANA zone whose wall clock the windows are read on (daylight saving included); IANA names only. Default ${TIME_OF_DAY_DEFAULTS.time_zone}, the contract's US Central service clock.`,
  ),
  windows: z
    .array(window, { error: `expected a list of windows, like [${EXAMPLE_WINDOW}]` })
    .min(1, `list at least one window, like ${EXAMPLE_WINDOW}`)
    .transform(buildSchedule)
    .describe('When requests pass: a request is allowed when any window contains the local time, and refused otherwise.'),
});

export type TimeOfDaySettings = z.output<typeof timeOfDaySchema>;
