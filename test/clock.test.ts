import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, systemClock, toEpochSeconds } from '../src/clock.js';
import { eventually } from './helpers/eventually.js';

describe('the system clock', () => {
  it('tells the time as milliseconds since the epoch', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('runs a timer once, and never after it is cancelled', async () => {
    const runs: string[] = [];
    systemClock.setTimer(() => runs.push('kept'), 1);
    systemClock.setTimer(() => runs.push('cancelled'), 1).cancel();
    systemClock.setTimer(() => runs.push('negative delay runs at once'), -5);
    await eventually(() => runs.length === 2, { what: 'both timers that were not cancelled' });
    expect(runs.sort()).toEqual(['kept', 'negative delay runs at once']);
  });

  it('never keeps the process alive: its timers are unref\'d', () => {
    const refTimers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const before = refTimers();
    const timer = systemClock.setTimer(() => undefined, 60_000);
    expect(refTimers()).toBe(before);
    timer.cancel();
  });

  it('caps a wait at what setTimeout can wait (~24.8 days), instead of firing at once', async () => {
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
    let ran = false;
    const timer = systemClock.setTimer(() => (ran = true), 30 * 24 * 3_600_000);
    // Node runs an over-long timeout after 1 ms instead: a 1 ms timer armed after it would run after it.
    let control = false;
    setTimeout(() => (control = true), 1);
    await eventually(() => control, { what: 'a 1 ms timer armed afterwards' });
    expect(ran).toBe(false);
    timer.cancel();
    timer.cancel(); // harmless twice
  });
});

describe('toEpochSeconds', () => {
  it.each([
    [0, 0],
    [999, 0],
    [1_000, 1],
    [1_763_726_400_999, 1_763_726_400],
  ])('%i ms -> %i s (rounded down, as JWT NumericDate)', (ms, seconds) => {
    expect(toEpochSeconds(ms)).toBe(seconds);
  });
});
