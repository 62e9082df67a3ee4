/**
 * Time is injected everywhere a lifetime, a rotation or an expiry is decided,
 * so tests freeze and advance it instead of sleeping (STYLE habit 8).
 */
export interface Clock {
  /** Milliseconds since the UNIX epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const toEpochSeconds = (ms: number): number => Math.floor(ms / 1000);
