import { describe, expect, it } from 'vitest';
import { timeOfDayPolicy } from './policy-at.js';

// November 2026 in Chicago is CST (-06:00): Mon 16 … Fri 20, Sat 21, Sun 22, Mon 23.
const BUSINESS_HOURS = { windows: [{ days: ['mon-fri'], from: '08:00', to: '18:00' }] };
const JUST_BEFORE = -1;

describe('time-of-day: a window opens at `from` and closes at `to` (exclusive)', () => {
  const policy = timeOfDayPolicy(BUSINESS_HOURS);

  it.each([
    ['exactly at from', '2026-11-16T08:00:00-06:00', 0, true],
    ['1 ms before from', '2026-11-16T08:00:00-06:00', JUST_BEFORE, false],
    ['1 ms before to', '2026-11-16T18:00:00-06:00', JUST_BEFORE, true],
    ['exactly at to', '2026-11-16T18:00:00-06:00', 0, false],
    ['midday', '2026-11-18T12:34:56.789-06:00', 0, true],
  ])('%s (%s %+d ms) → allowed %s', async (_rule, instant, plusMs, allowed) => {
    expect(await policy.isAllowedAt(instant, plusMs)).toBe(allowed);
  });

  it.each([
    ['to "24:00" lets the last millisecond of the day through', '2026-11-22T00:00:00-06:00', JUST_BEFORE, true],
    ['and closes at midnight', '2026-11-22T00:00:00-06:00', 0, false],
    ['it opens at from as usual', '2026-11-21T20:00:00-06:00', 0, true],
  ])('%s', async (_rule, instant, plusMs, allowed) => {
    const evening = timeOfDayPolicy({ windows: [{ days: ['sat'], from: '20:00', to: '24:00' }] });
    expect(await evening.isAllowedAt(instant, plusMs)).toBe(allowed);
  });

  it('00:00 to 24:00 is the whole day and nothing of the days around it', async () => {
    const saturday = timeOfDayPolicy({ windows: [{ days: ['sat'], from: '00:00', to: '24:00' }] });
    expect(await saturday.openMinutes('2026-11-20T00:00:00-06:00', '2026-11-23T00:00:00-06:00')).toBe(24 * 60);
    expect(await saturday.isAllowedAt('2026-11-21T00:00:00-06:00')).toBe(true);
    expect(await saturday.isAllowedAt('2026-11-21T00:00:00-06:00', JUST_BEFORE)).toBe(false);
  });
});

describe('time-of-day: days pick local weekdays, single or as ranges', () => {
  const at10 = (date: string) => `${date}T10:00:00-06:00`;

  it.each([
    [['mon-fri'], '2026-11-20', true], // fri
    [['mon-fri'], '2026-11-21', false], // sat
    [['mon', 'wed'], '2026-11-18', true], // wed
    [['mon', 'wed'], '2026-11-17', false], // tue
    [['Sat-SUN'], '2026-11-22', true], // case does not matter
    [['fri-mon'], '2026-11-22', true], // a range wraps past sunday
    [['fri-mon'], '2026-11-23', true],
    [['fri-mon'], '2026-11-17', false],
    [['sun-sat'], '2026-11-18', true], // the whole week, whichever day a reader starts it on
    [['mon-fri', 'wed'], '2026-11-18', true], // overlaps are harmless
  ])('%j on %s at 10:00 → allowed %s', async (days, date, allowed) => {
    const policy = timeOfDayPolicy({ windows: [{ days, from: '09:00', to: '17:00' }] });
    expect(await policy.isAllowedAt(at10(date))).toBe(allowed);
  });

  it('allows a request that any one of several windows contains', async () => {
    const policy = timeOfDayPolicy({
      windows: [
        { days: ['mon-fri'], from: '08:00', to: '12:00' },
        { days: ['mon-fri'], from: '13:00', to: '17:00' },
        { days: ['sat'], from: '10:00', to: '12:00' },
      ],
    });
    expect(await policy.isAllowedAt('2026-11-16T12:30:00-06:00')).toBe(false);
    expect(await policy.isAllowedAt('2026-11-16T13:00:00-06:00')).toBe(true);
    expect(await policy.isAllowedAt('2026-11-21T11:59:00-06:00')).toBe(true);
  });
});

describe('time-of-day: a window with from after to runs past midnight into the next day', () => {
  it.each([
    ['fri', '2026-11-20T22:00:00-06:00', JUST_BEFORE, false],
    ['fri', '2026-11-20T22:00:00-06:00', 0, true],
    ['fri', '2026-11-21T00:00:00-06:00', 0, true], // saturday, after midnight
    ['fri', '2026-11-21T06:00:00-06:00', JUST_BEFORE, true],
    ['fri', '2026-11-21T06:00:00-06:00', 0, false],
    ['fri', '2026-11-20T03:00:00-06:00', 0, false], // friday morning belongs to thursday's night
    ['sun', '2026-11-22T23:30:00-06:00', 0, true],
    ['sun', '2026-11-23T05:59:00-06:00', 0, true], // across the week end, into monday
    ['sun', '2026-11-23T06:00:00-06:00', 0, false],
    ['sun', '2026-11-22T05:00:00-06:00', 0, false], // sunday morning belongs to saturday's night
  ])('[%s] 22:00–06:00 at %s %+d ms → allowed %s', async (day, instant, plusMs, allowed) => {
    const night = timeOfDayPolicy({ windows: [{ days: [day], from: '22:00', to: '06:00' }] });
    expect(await night.isAllowedAt(instant, plusMs)).toBe(allowed);
  });

  it('a night ending at "00:00" ends at midnight', async () => {
    const late = timeOfDayPolicy({ windows: [{ days: ['fri'], from: '22:00', to: '00:00' }] });
    expect(await late.isAllowedAt('2026-11-21T00:00:00-06:00', JUST_BEFORE)).toBe(true);
    expect(await late.isAllowedAt('2026-11-21T00:00:00-06:00')).toBe(false);
  });
});

describe('time-of-day: windows are read on the wall clock of time_zone', () => {
  it.each([
    // Asia/Kolkata is UTC+05:30 all year: the window opens at 03:30 UTC.
    ['Asia/Kolkata', '2026-11-16T03:30:00Z', 0, true],
    ['Asia/Kolkata', '2026-11-16T03:30:00Z', JUST_BEFORE, false],
    ['Asia/Kolkata', '2026-11-16T11:30:00Z', 0, false],
    ['UTC', '2026-11-16T09:00:00Z', 0, true],
    ['UTC', '2026-11-16T17:00:00Z', 0, false],
    // The same instant is Monday 09:00 in Chicago and Monday 20:30 in Kolkata.
    ['America/Chicago', '2026-11-16T15:00:00Z', 0, true],
    ['Asia/Kolkata', '2026-11-16T15:00:00Z', 0, false],
  ])('%s: mon 09:00–17:00 at %s %+d ms → allowed %s', async (time_zone, instant, plusMs, allowed) => {
    const policy = timeOfDayPolicy({ time_zone, windows: [{ days: ['mon'], from: '09:00', to: '17:00' }] });
    expect(await policy.isAllowedAt(instant, plusMs)).toBe(allowed);
  });

  it('takes the weekday from the zone too: Monday 01:00 in Kolkata is still Sunday in UTC', async () => {
    const policy = timeOfDayPolicy({ time_zone: 'Asia/Kolkata', windows: [{ days: ['mon'], from: '00:00', to: '02:00' }] });
    expect(await policy.isAllowedAt('2026-11-15T19:30:00Z')).toBe(true);
  });
});

describe('time-of-day: a refusal', () => {
  it('is TIME_OF_DAY_FORBIDDEN with the local time and zone for the logs', async () => {
    const policy = timeOfDayPolicy(BUSINESS_HOURS);
    expect(await policy.verdictAt('2026-11-21T07:59:30-06:00')).toEqual({
      code: 'TIME_OF_DAY_FORBIDDEN',
      detail: 'outside the allowed windows: Sat 07:59 America/Chicago',
    });
  });

  it('names the zone as the operator wrote it', async () => {
    const policy = timeOfDayPolicy({ time_zone: 'Asia/Kolkata', ...BUSINESS_HOURS });
    expect(await policy.verdictAt('2026-11-16T00:00:00Z')).toEqual({
      code: 'TIME_OF_DAY_FORBIDDEN',
      detail: 'outside the allowed windows: Mon 05:30 Asia/Kolkata',
    });
  });

  it('is evaluated at each request: the same compiled policy opens as its clock moves', async () => {
    const policy = timeOfDayPolicy(BUSINESS_HOURS);
    expect(await policy.verdictAt('2026-11-16T07:59:00-06:00')).toBeDefined();
    expect(await policy.verdictAt('2026-11-16T08:00:00-06:00')).toBeUndefined();
  });
});
