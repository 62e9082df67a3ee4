import { describe, expect, it } from 'vitest';
import { timeOfDayPolicy } from './policy-at.js';

// America/Chicago in 2026: on Sun 8 March 02:00 CST (08:00Z) clocks jump to
// 03:00 CDT; on Sun 1 November 02:00 CDT (07:00Z) they fall back to 01:00 CST.
// Instants are written in UTC so that each row shows which hour it is.
const JUST_BEFORE = -1;
const ALL_WEEK = ['mon-sun'];

describe('time-of-day: across daylight-saving changes a window opens at the same local time', () => {
  const office = timeOfDayPolicy({ windows: [{ days: ALL_WEEK, from: '08:00', to: '18:00' }] });

  it.each([
    ['Sat 7 Mar, 08:00 CST', '2026-03-07T14:00:00Z'],
    ['Sun 8 Mar, 08:00 CDT (the change day)', '2026-03-08T13:00:00Z'],
    ['Mon 9 Mar, 08:00 CDT', '2026-03-09T13:00:00Z'],
    ['Sat 31 Oct, 08:00 CDT', '2026-10-31T13:00:00Z'],
    ['Sun 1 Nov, 08:00 CST (the change day)', '2026-11-01T14:00:00Z'],
  ])('opens on %s (%s) and not a millisecond before', async (_local, opening) => {
    expect(await office.isAllowedAt(opening)).toBe(true);
    expect(await office.isAllowedAt(opening, JUST_BEFORE)).toBe(false);
  });

  it.each([
    ['Sat 7 Mar, 18:00 CST', '2026-03-08T00:00:00Z'],
    ['Sun 8 Mar, 18:00 CDT', '2026-03-08T23:00:00Z'],
    ['Sat 31 Oct, 18:00 CDT', '2026-10-31T23:00:00Z'],
    ['Sun 1 Nov, 18:00 CST', '2026-11-02T00:00:00Z'],
  ])('closes on %s (%s)', async (_local, closing) => {
    expect(await office.isAllowedAt(closing, JUST_BEFORE)).toBe(true);
    expect(await office.isAllowedAt(closing)).toBe(false);
  });

  it('stays open ten real hours on both change days', async () => {
    expect(await office.openMinutes('2026-03-08T06:00:00Z', '2026-03-09T05:00:00Z')).toBe(10 * 60);
    expect(await office.openMinutes('2026-11-01T05:00:00Z', '2026-11-02T06:00:00Z')).toBe(10 * 60);
  });
});

describe('time-of-day: the hour repeated when clocks fall back is inside the window both times', () => {
  const earlyHours = timeOfDayPolicy({ windows: [{ days: ['sun'], from: '01:00', to: '02:00' }] });

  it.each([
    ['00:59:59.999 CDT', '2026-11-01T06:00:00Z', JUST_BEFORE, false],
    ['01:00 CDT, the first time', '2026-11-01T06:00:00Z', 0, true],
    ['01:59:59.999 CDT', '2026-11-01T07:00:00Z', JUST_BEFORE, true],
    ['01:00 CST, the second time', '2026-11-01T07:00:00Z', 0, true],
    ['01:59:59.999 CST', '2026-11-01T08:00:00Z', JUST_BEFORE, true],
    ['02:00 CST', '2026-11-01T08:00:00Z', 0, false],
  ])('%s → allowed %s', async (_local, instant, plusMs, allowed) => {
    expect(await earlyHours.isAllowedAt(instant, plusMs)).toBe(allowed);
  });

  it('so it is open two real hours that night and one the next sunday', async () => {
    expect(await earlyHours.openMinutes('2026-11-01T05:00:00Z', '2026-11-01T10:00:00Z')).toBe(120);
    expect(await earlyHours.openMinutes('2026-11-08T05:00:00Z', '2026-11-08T10:00:00Z')).toBe(60);
  });
});

describe('time-of-day: the hour skipped when clocks go forward is simply never on the wall clock', () => {
  it.each([
    ['00:59:59.999 CST', '2026-03-08T07:00:00Z', JUST_BEFORE, false],
    ['01:00 CST', '2026-03-08T07:00:00Z', 0, true],
    ['01:59:59.999 CST, the last moment before the jump', '2026-03-08T08:00:00Z', JUST_BEFORE, true],
    ['03:00 CDT, the first moment after it', '2026-03-08T08:00:00Z', 0, true],
    ['04:00 CDT', '2026-03-08T09:00:00Z', 0, false],
  ])('01:00–04:00 spanning the jump: %s → allowed %s', async (_local, instant, plusMs, allowed) => {
    const overnight = timeOfDayPolicy({ windows: [{ days: ['sun'], from: '01:00', to: '04:00' }] });
    expect(await overnight.isAllowedAt(instant, plusMs)).toBe(allowed);
  });

  it('a window spanning the jump is open for the real time its local hours exist: two hours, not three', async () => {
    const overnight = timeOfDayPolicy({ windows: [{ days: ['sun'], from: '01:00', to: '04:00' }] });
    expect(await overnight.openMinutes('2026-03-08T06:00:00Z', '2026-03-08T12:00:00Z')).toBe(120);
  });

  it('a window half inside the skipped hour opens when the clock lands at 03:00', async () => {
    const halfSkipped = timeOfDayPolicy({ windows: [{ days: ['sun'], from: '02:30', to: '03:30' }] });
    expect(await halfSkipped.isAllowedAt('2026-03-08T08:00:00Z', JUST_BEFORE)).toBe(false);
    expect(await halfSkipped.isAllowedAt('2026-03-08T08:00:00Z')).toBe(true);
    expect(await halfSkipped.openMinutes('2026-03-08T06:00:00Z', '2026-03-08T12:00:00Z')).toBe(30);
  });

  it('a window wholly inside the skipped hour does not open that day, and opens the next sunday', async () => {
    const skipped = timeOfDayPolicy({ windows: [{ days: ['sun'], from: '02:00', to: '03:00' }] });
    expect(await skipped.openMinutes('2026-03-08T06:00:00Z', '2026-03-09T06:00:00Z')).toBe(0);
    expect(await skipped.openMinutes('2026-03-15T05:00:00Z', '2026-03-16T05:00:00Z')).toBe(60);
  });
});
