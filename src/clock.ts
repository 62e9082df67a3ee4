/**
 * Time is injected everywhere a lifetime, a rotation or an expiry is decided,
 * so tests freeze and advance it instead of sleeping (STYLE habit 8): both
 * what time it is and when something runs next come from the clock.
 */
export interface Clock {
  /** Milliseconds since the UNIX epoch. */
  now(): number;
  /**
   * Runs `callback` once, `ms` from now by this clock. The timer never keeps
   * the process alive (a gateway ends when its listeners and store close).
   */
  setTimer(callback: () => void, ms: number): Timer;
}

export interface Timer {
  /** Stops a timer that has not run yet; harmless after it ran. */
  cancel(): void;
}

/** node's setTimeout cannot wait longer than 2^31-1 ms (~24.8 days); a longer wait fires then, and its owner re-arms. */
export const MAX_TIMER_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, ms) {
    const timeout = setTimeout(callback, Math.min(Math.max(ms, 0), MAX_TIMER_MS)).unref();
    return { cancel: () => clearTimeout(timeout) };
  },
};

export const toEpochSeconds = (ms: number): number => Math.floor(ms / 1000);
