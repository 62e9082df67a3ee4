import type { Clock, Timer } from '../../src/clock.js';

interface PendingTimer {
  readonly at: number;
  readonly order: number;
  readonly callback: () => void;
  cancelled: boolean;
}

/**
 * A clock that moves only when a test says so. Its timers run when
 * `advance` passes their time, in order, as the system clock's would: a
 * rotation due in 24 hours runs after `advance(24 * HOUR)`, at once.
 */
export class ManualClock implements Clock {
  private readonly timers: PendingTimer[] = [];
  private order = 0;

  constructor(private current = Date.parse('2026-11-21T12:00:00Z')) {}

  now(): number {
    return this.current;
  }

  setTimer(callback: () => void, ms: number): Timer {
    const timer: PendingTimer = { at: this.current + Math.max(ms, 0), order: this.order++, callback, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }

  /** Moves time forward, running each timer that falls due on the way at its own time. */
  advance(ms: number): void {
    const until = this.current + ms;
    for (;;) {
      const next = this.nextDue(until);
      if (!next) break;
      this.timers.splice(this.timers.indexOf(next), 1);
      this.current = Math.max(this.current, next.at);
      next.callback();
    }
    this.current = until;
  }

  /** Timers not run or cancelled yet. */
  get pendingTimers(): number {
    return this.timers.filter((timer) => !timer.cancelled).length;
  }

  /**
   * Whether a timer waits to run within `ms` from now: what a test polls for
   * before it advances, when the code under test arms its timer only after
   * some real I/O (a Redis round trip).
   */
  hasTimerWithin(ms: number): boolean {
    return this.timersWithin(ms) > 0;
  }

  /** How many timers wait to run within `ms` from now. */
  timersWithin(ms: number): number {
    return this.timers.filter((timer) => !timer.cancelled && timer.at <= this.current + ms).length;
  }

  private nextDue(until: number): PendingTimer | undefined {
    let next: PendingTimer | undefined;
    for (const timer of this.timers) {
      if (timer.cancelled || timer.at > until) continue;
      if (!next || timer.at < next.at || (timer.at === next.at && timer.order < next.order)) next = timer;
    }
    return next;
  }
}
