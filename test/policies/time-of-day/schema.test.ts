import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { TIME_OF_DAY_DEFAULTS, timeOfDaySchema } from '../../../src/policies/time-of-day/schema.js';

const NAME_AND_KIND = { name: 'opening-hours', kind: 'time-of-day' };
const WEEKDAY_HOURS = { days: ['mon-fri'], from: '08:00', to: '18:00' };

/** A policy with one window, the given keys of it replaced. */
const withWindow = (window: Record<string, unknown>, policy: Record<string, unknown> = {}) => ({
  ...NAME_AND_KIND,
  windows: [{ ...WEEKDAY_HOURS, ...window }],
  ...policy,
});

function issuesOf(input: unknown): Array<{ path: PropertyKey[]; message: string }> {
  const result = timeOfDaySchema.safeParse(input);
  expect(result.success).toBe(false);
  return (result.error?.issues ?? []).map(({ path, message }) => ({ path, message }));
}

describe('time-of-day schema: what loads', () => {
  it('defaults time_zone to America/Chicago and compiles windows into local minutes per weekday, mon first', () => {
    const settings = timeOfDaySchema.parse(withWindow({}));
    expect(settings.time_zone).toBe(TIME_OF_DAY_DEFAULTS.time_zone);
    const weekday = [{ from: 480, to: 1080 }];
    expect(settings.windows).toEqual([weekday, weekday, weekday, weekday, weekday, [], []]);
    expect(Object.isFrozen(settings.windows)).toBe(true);
  });

  it('splits a window past midnight at midnight, the morning on the next day (sun into mon)', () => {
    const settings = timeOfDaySchema.parse(withWindow({ days: ['sun'], from: '22:00', to: '06:30' }));
    expect(settings.windows[6]).toEqual([{ from: 1320, to: 1440 }]);
    expect(settings.windows[0]).toEqual([{ from: 0, to: 390 }]);
  });

  it.each([['Asia/Kolkata'], ['UTC'], ['utc'], ['Etc/GMT+6'], [' Europe/Paris ']])('accepts the zone %j', (time_zone) => {
    expect(timeOfDaySchema.safeParse(withWindow({}, { time_zone })).success).toBe(true);
  });

  it('reads unquoted YAML times as strings (YAML 1.2, the yaml package default)', () => {
    const yaml = 'name: night\nkind: time-of-day\nwindows:\n  - { days: [Fri], from: 22:00, to: 06:00 }\n';
    const settings = timeOfDaySchema.parse(parse(yaml));
    expect(settings.windows[4]).toEqual([{ from: 1320, to: 1440 }]);
  });
});

describe('time-of-day schema: time_zone must be a zone Intl knows, by region', () => {
  it.each([
    ['Mars/Olympus_Mons', '"Mars/Olympus_Mons" is not a time zone this Node.js knows: expected an IANA name like America/Chicago, Asia/Kolkata or UTC'],
    ['+05:30', '"+05:30" is not a time zone this Node.js knows: expected an IANA name like America/Chicago, Asia/Kolkata or UTC'],
    ['EST', '"EST" is an abbreviation or legacy alias: expected an Area/Location name like America/Chicago (Etc/GMT+6 for a fixed UTC-6, or UTC)'],
    ['CST', '"CST" is an abbreviation or legacy alias: expected an Area/Location name like America/Chicago (Etc/GMT+6 for a fixed UTC-6, or UTC)'],
  ])('refuses %j', (time_zone, message) => {
    expect(issuesOf(withWindow({}, { time_zone }))).toEqual([{ path: ['time_zone'], message }]);
  });
});

describe('time-of-day schema: from and to are "HH:MM" strings', () => {
  const FROM = 'expected a time "HH:MM" from "00:00" to "23:59"';
  const TO = 'expected a time "HH:MM" from "00:00" to "24:00"';

  it.each([
    ['from', '8:00', `${FROM}, got "8:00"`],
    ['from', '24:00', `${FROM}, got "24:00"`],
    ['from', '23:60', `${FROM}, got "23:60"`],
    ['from', '12:5', `${FROM}, got "12:5"`],
    ['from', 'noon', `${FROM}, got "noon"`],
    ['from', '08:00:00', `${FROM}, got "08:00:00"`],
    ['to', '24:01', `${TO}, got "24:01"`],
    ['to', '25:00', `${TO}, got "25:00"`],
    ['from', 480, `${FROM} in quotes, got the number 480 (a YAML 1.1 reader turns an unquoted 08:00 into 480)`],
    ['to', true, `${TO}, got true`],
    ['from', undefined, 'is required, like "08:00"'],
  ])('refuses %s: %j', (key, value, message) => {
    expect(issuesOf(withWindow({ [key]: value }))).toEqual([{ path: ['windows', 0, key], message }]);
  });

  it('explains the number a YAML 1.1 reader makes of an unquoted time', () => {
    const yaml = 'name: night\nkind: time-of-day\nwindows:\n  - { days: [fri], from: 22:00, to: "06:00" }\n';
    expect(issuesOf(parse(yaml, { version: '1.1' }))).toEqual([
      { path: ['windows', 0, 'from'], message: `${FROM} in quotes, got the number 1320 (a YAML 1.1 reader turns an unquoted 08:00 into 480)` },
    ]);
  });

  it('refuses from equal to to, which could mean never or all day', () => {
    expect(issuesOf(withWindow({ from: '09:00', to: '09:00' }))).toEqual([
      { path: ['windows', 0, 'to'], message: 'equals from: for the whole day write from: "00:00" and to: "24:00"' },
    ]);
  });
});

describe('time-of-day schema: days are mon … sun or forward ranges', () => {
  const EXPECTED = 'expected a day (mon, tue, wed, thu, fri, sat, sun) or a range like mon-fri';

  it.each([
    ['weekdays', `${EXPECTED}, got "weekdays"`],
    ['monday', `${EXPECTED}, got "monday"`],
    ['mon-', `${EXPECTED}, got "mon-"`],
    ['mon-xyz', `${EXPECTED}, got "mon-xyz"`],
    ['mon,tue', `${EXPECTED}, got "mon,tue"`],
    ['', `${EXPECTED}, got ""`],
    ['Tue-tue', '"Tue-tue" starts and ends on the same day: write "tue" for one day or a range like mon-sun'],
  ])('refuses %j', (day, message) => {
    expect(issuesOf(withWindow({ days: ['sat', day] }))).toEqual([{ path: ['windows', 0, 'days', 1], message }]);
  });

  it.each([
    ['an empty list', [], 'list at least one day, like [mon-fri]'],
    ['a bare string', 'mon-fri', 'expected a list of days like [mon-fri] or [sat, sun]'],
  ])('refuses %s', (_what, days, message) => {
    expect(issuesOf(withWindow({ days }))).toEqual([{ path: ['windows', 0, 'days'], message }]);
  });
});

describe('time-of-day schema: windows', () => {
  it.each([
    ['an empty list', [], 'list at least one window, like { days: [mon-fri], from: "08:00", to: "18:00" }'],
    ['no list', undefined, 'expected a list of windows, like [{ days: [mon-fri], from: "08:00", to: "18:00" }]'],
  ])('refuses %s', (_what, windows, message) => {
    expect(issuesOf({ ...NAME_AND_KIND, windows })).toEqual([{ path: ['windows'], message }]);
  });

  it('refuses unknown keys in a window and in the policy', () => {
    const issues = issuesOf(withWindow({ until: '18:00' }, { timezone: 'UTC' }));
    expect(issues.map(({ path }) => path)).toEqual([['windows', 0], []]);
  });
});
