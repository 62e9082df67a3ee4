import type { Clock } from '../clock.js';
import type { KeyRing } from './key-ring.js';

export interface RotationSchedule {
  stop(): void;
}

/** setTimeout cannot wait longer than ~24.8 days; longer waits are taken in steps. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Runs the ring's maintenance when it is next due. A failure (key generation
 * cannot normally fail, but a later shared store can) is reported and retried
 * a second later; the current key keeps signing meanwhile.
 */
export function scheduleRotation(ring: KeyRing, clock: Clock, onError: (error: unknown) => void, onRotate?: () => void): RotationSchedule {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(run, Math.min(Math.max(delay, 0), MAX_TIMER_MS)).unref();
  };
  const run = () => {
    ring.maintain().then(
      (changed) => {
        if (changed) onRotate?.();
        arm(ring.nextDueAt() - clock.now());
      },
      (error: unknown) => {
        onError(error);
        arm(1_000);
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
