import { describe, expect, it } from 'vitest';
import { expectedTime, notATime, parseTime } from '../../../src/policies/time-of-day/times.js';

describe('window bounds ("HH:MM", 24-hour)', () => {
  it.each([
    ['00:00', 'from', 0],
    ['08:00', 'from', 480],
    ['23:59', 'to', 1_439],
    ['24:00', 'to', 1_440],
  ] as const)('reads %s as a %s bound: minute %i', (text, bound, minutes) => {
    expect(parseTime(text, bound)).toBe(minutes);
  });

  it.each([
    ['24:00', 'from'],
    ['8:00', 'from'],
    ['08:60', 'to'],
    ['25:00', 'to'],
    ['08:00:00', 'from'],
    ['8am', 'to'],
  ] as const)('refuses %s as a %s bound', (text, bound) => {
    expect(parseTime(text, bound)).toBeUndefined();
  });

  it('says what a bound looks like, 24:00 only as the end', () => {
    expect(expectedTime('from')).toBe('expected a time "HH:MM" from "00:00" to "23:59"');
    expect(expectedTime('to')).toBe('expected a time "HH:MM" from "00:00" to "24:00"');
  });

  it('explains a missing bound, and one a YAML 1.1 reader turned into a number', () => {
    expect(notATime(undefined, 'from')).toBe('is required, like "08:00"');
    expect(notATime(undefined, 'to')).toBe('is required, like "18:00"');
    expect(notATime(480, 'from')).toContain('480');
  });
});
