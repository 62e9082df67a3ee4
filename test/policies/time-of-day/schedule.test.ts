import { describe, expect, it } from 'vitest';
import { buildSchedule, isOpen } from '../../../src/policies/time-of-day/schedule.js';

const H = 60;
const [MON, FRI, SAT, SUN] = [0, 4, 5, 6];

describe('the compiled schedule of time-of-day windows', () => {
  it('opens a window from its start, inclusive, to its end, exclusive', () => {
    const schedule = buildSchedule([{ days: [MON], from: 8 * H, to: 18 * H }]);
    expect([isOpen(schedule, MON, 8 * H - 1), isOpen(schedule, MON, 8 * H), isOpen(schedule, MON, 18 * H - 1), isOpen(schedule, MON, 18 * H)]).toEqual([false, true, true, false]);
    expect(isOpen(schedule, FRI, 12 * H)).toBe(false);
  });

  it('gives a window past midnight to the day it starts on, and ends it the next day (sunday into monday)', () => {
    const schedule = buildSchedule([{ days: [FRI, SUN], from: 22 * H, to: 6 * H }]);
    expect(schedule[FRI]).toEqual([{ from: 22 * H, to: 24 * H }]);
    expect(schedule[SAT]).toEqual([{ from: 0, to: 6 * H }]);
    expect(schedule[MON]).toEqual([{ from: 0, to: 6 * H }]);
    expect([isOpen(schedule, SAT, 5 * H + 59), isOpen(schedule, SAT, 6 * H)]).toEqual([true, false]);
  });

  it('adds nothing to the next day for a window ending at midnight', () => {
    const schedule = buildSchedule([{ days: [SAT], from: 20 * H, to: 0 }]);
    expect(schedule[SAT]).toEqual([{ from: 20 * H, to: 24 * H }]);
    expect(schedule[SUN]).toEqual([]);
  });

  it('joins several windows, and is frozen', () => {
    const schedule = buildSchedule([
      { days: [MON], from: 8 * H, to: 12 * H },
      { days: [MON], from: 13 * H, to: 17 * H },
    ]);
    expect([isOpen(schedule, MON, 12 * H + 30), isOpen(schedule, MON, 13 * H)]).toEqual([false, true]);
    expect(Object.isFrozen(schedule) && Object.isFrozen(schedule[MON])).toBe(true);
  });

  it('is closed on every day without a window', () => {
    const schedule = buildSchedule([]);
    for (let day = 0; day < 7; day++) expect(isOpen(schedule, day, 12 * H)).toBe(false);
  });
});
