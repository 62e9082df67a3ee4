import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { HEARTBEAT_INTERVAL_MS, INSTANCE_HORIZON_MS, isLive, LIVE_WINDOW_MS, newInstanceId } from '../../src/store/instances.js';

/** How instances of one environment hear of each other (src/store/instances.ts; docs/several-instances.md, "Instances know of each other"). */
describe('instances and their heartbeats', () => {
  it.each([
    ['a heartbeat each second', HEARTBEAT_INTERVAL_MS, 1_000],
    ['live when heard from within 3 s: three beats, so one slow beat does not make an instance look gone', LIVE_WINDOW_MS, 3 * HEARTBEAT_INTERVAL_MS],
    ['forgotten when silent for 10 minutes', INSTANCE_HORIZON_MS, 10 * 60_000],
  ])('%s', (_rule, value, expected) => {
    expect(value).toBe(expected);
  });

  const now = Date.parse('2026-11-21T12:00:00Z');
  it.each([
    ['just now', 0, true],
    ['one beat ago', 1_000, true],
    ['two beats and a slow one ago', 2_999, true],
    ['exactly 3 s ago', 3_000, true],
    ['a millisecond past 3 s', 3_001, false],
    ['a minute ago (cut off from redis, or killed)', 60_000, false],
    ['in the future by a clock a little ahead', -500, true],
  ])('counts an instance heard from %s as live: %s', (_when, age, live) => {
    expect(isLive(now - age, now)).toBe(live);
  });

  it('names an instance host/pid/random, what an operator recognises, unique even for one host and pid', () => {
    const id = newInstanceId();
    expect(id).toMatch(new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/${process.pid}/[0-9a-f]{6}$`));
    expect(new Set(Array.from({ length: 10 }, newInstanceId)).size).toBe(10);
  });
});
