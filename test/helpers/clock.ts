import type { Clock } from '../../src/clock.js';

/** A clock that moves only when a test says so. */
export class ManualClock implements Clock {
  constructor(private current = Date.parse('2026-11-21T12:00:00Z')) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
