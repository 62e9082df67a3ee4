import { describe, expect, it } from 'vitest';
import { parseDayEntry, WEEKDAYS } from '../../../src/policies/time-of-day/days.js';

describe('day names in time-of-day windows', () => {
  it('numbers the days in ISO order, monday first', () => {
    expect(WEEKDAYS).toEqual(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);
  });

  it.each([
    ['mon', [0]],
    ['Sun', [6]],
    ['MON', [0]],
    [' wed ', [2]],
    ['mon-fri', [0, 1, 2, 3, 4]],
    ['mon - fri', [0, 1, 2, 3, 4]],
    ['fri-mon', [4, 5, 6, 0]],
    ['sun-sat', [6, 0, 1, 2, 3, 4, 5]],
  ])('reads %j as days %j (ranges walk forward, past sunday)', (entry, days) => {
    expect(parseDayEntry(entry)).toEqual({ ok: true, days });
  });

  it.each([
    ['weekdays', 'expected a day (mon, tue, wed, thu, fri, sat, sun) or a range like mon-fri, got "weekdays"'],
    ['monday', 'expected a day (mon, tue, wed, thu, fri, sat, sun) or a range like mon-fri, got "monday"'],
    ['mon-xyz', 'expected a day (mon, tue, wed, thu, fri, sat, sun) or a range like mon-fri, got "mon-xyz"'],
    ['', 'expected a day (mon, tue, wed, thu, fri, sat, sun) or a range like mon-fri, got ""'],
    ['mon-mon', '"mon-mon" starts and ends on the same day: write "mon" for one day or a range like mon-sun'],
  ])('refuses %j: %s', (entry, message) => {
    expect(parseDayEntry(entry)).toEqual({ ok: false, message });
  });
});
