import type { Clock } from '../clock.js';

export interface RotationSchedule {
  stop(): void;
}

/** What the schedule drives: the key ring's keeper (which also keeps a single gateway's ring, on the memory store). */
export interface Maintainable {
  maintain(): Promise<boolean>;
  nextDueAt(): number;
}

/** setTimeout cannot wait longer than ~24.8 days; longer waits are taken in steps. */
const MAX_TIMER_MS = 2_147_483_647;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

/**
 * Runs the ring's maintenance when it is next due. A failure (a shared store
 * out of reach) is reported and retried with back-off; the current key keeps
 * signing meanwhile, and the next one takes over on time because it is
 * already published.
 */
export function scheduleRotation(ring: Maintainable, clock: Clock, onError: (error: unknown) => void, onRotate?: () => void): RotationSchedule {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let retryMs = FIRST_RETRY_MS;
  const arm = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(run, Math.min(Math.max(delay, 0), MAX_TIMER_MS)).unref();
  };
  const run = () => {
    ring.maintain().then(
      (changed) => {
        retryMs = FIRST_RETRY_MS;
        if (changed) onRotate?.();
        arm(ring.nextDueAt() - clock.now());
      },
      (error: unknown) => {
        onError(error);
        arm(retryMs);
        retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
      },
    );
  };
  arm(ring.nextDueAt() - clock.now());
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
