import { describe, expect, it } from 'vitest';
import { DEFAULT_RENEW_AFTER_MS, EXPIRY_MARGIN_MS, scheduleRenewal } from '../src/renewal-schedule.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-21T12:00:00Z');

describe('scheduleRenewal (SPEC 5.5, 8)', () => {
  it.each([
    ['the spec token (30 min): at the 28-minute mark', 30 * MINUTE, DEFAULT_RENEW_AFTER_MS, 28 * MINUTE],
    ['a 5-minute token: at the same proportion, 28/30', 5 * MINUTE, DEFAULT_RENEW_AFTER_MS, 280_000],
    ['a 60-minute token: no later than renewAfterMs', 60 * MINUTE, DEFAULT_RENEW_AFTER_MS, 28 * MINUTE],
    ['renewAfterMs of 10 min on a 30-minute token', 30 * MINUTE, 10 * MINUTE, 10 * MINUTE],
    ['renewAfterMs of 10 min on a 15-minute token: the proportion, 1/3', 15 * MINUTE, 10 * MINUTE, 5 * MINUTE],
    ['renewAfterMs past the expiry: the expiry minus the margin', 30 * MINUTE, 45 * MINUTE, 30 * MINUTE - EXPIRY_MARGIN_MS],
    ['a 1-minute token: 56 s would leave less than the margin, so 50 s', MINUTE, DEFAULT_RENEW_AFTER_MS, MINUTE - EXPIRY_MARGIN_MS],
    ['a token shorter than the margin: renewed on the next call', 5_000, DEFAULT_RENEW_AFTER_MS, 0],
  ])('%s', (_, lifetimeMs, renewAfterMs, expectedDelay) => {
    const schedule = scheduleRenewal(T0, lifetimeMs, renewAfterMs);
    expect(schedule.renewAt - T0).toBe(expectedDelay);
    expect(schedule.usableUntil).toBe(T0 + Math.max(0, lifetimeMs - EXPIRY_MARGIN_MS));
    expect(schedule.renewAt).toBeLessThanOrEqual(schedule.usableUntil);
  });
});
