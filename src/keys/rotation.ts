import type { Clock, Timer } from '../clock.js';
import type { ManualRotation, RotateNowOptions } from './keeper.js';

/** Rotating now, as the admin API does: the schedule's own business, so it re-plans and announces it. */
export interface KeyRotation {
  rotateNow(options: RotateNowOptions): Promise<ManualRotation>;
}

export interface RotationSchedule extends KeyRotation {
  stop(): void;
}

/** What the schedule drives: the key ring's keeper (which also keeps a single gateway's ring, on the memory store). */
export interface Maintainable extends KeyRotation {
  maintain(): Promise<boolean>;
  nextDueAt(): number;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

/** Who rotated: the schedule, or an operator through the admin API. */
export type RotationTrigger = 'schedule' | 'admin';

/**
 * Runs the ring's maintenance when it is next due. A failure (a shared store
 * out of reach) is reported and retried with back-off; the current key keeps
 * signing meanwhile, and the next one takes over on time because it is
 * already published.
 */
export function scheduleRotation(
  ring: Maintainable,
  clock: Clock,
  onError: (error: unknown) => void,
  onRotate?: (trigger: RotationTrigger) => void,
): RotationSchedule {
  // The clock's timer: a test advances the clock and the rotation runs, without waiting (longer than ~24.8 days is taken in steps).
  let timer: Timer | undefined;
  let stopped = false;
  let running = false;
  let retryMs = FIRST_RETRY_MS;
  const arm = (delay: number) => {
    if (stopped) return;
    timer = clock.setTimer(run, delay);
  };
  const run = () => {
    running = true;
    ring.maintain().then(
      (changed) => {
        running = false;
        retryMs = FIRST_RETRY_MS;
        if (changed) onRotate?.('schedule');
        arm(ring.nextDueAt() - clock.now());
      },
      (error: unknown) => {
        running = false;
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
      timer?.cancel();
    },
    async rotateNow(options) {
      const rotation = await ring.rotateNow(options);
      // Announced like a scheduled rotation, so the log (and whatever counts rotations) sees every one that changed the ring.
      if (rotation.changed) onRotate?.('admin');
      // The ring's next due time moved; a run in progress re-arms by itself when it ends.
      if (!running) {
        timer?.cancel();
        arm(ring.nextDueAt() - clock.now());
      }
      return rotation;
    },
  };
}
