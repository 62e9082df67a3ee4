import type { PolicyKind } from '../policy.js';
import { isOpen, spansOfDay } from './schedule.js';
import { timeOfDaySchema } from './schema.js';
import { wallClockIn } from './wall-clock.js';

/**
 * SPEC 5.8 and 7: outside the configured windows a request is refused with
 * 403 "Access to the requested resource is Forbidden". The windows and the
 * zone's formatter are built once; a request only reads the clock.
 */
export const timeOfDay: PolicyKind<typeof timeOfDaySchema> = {
  kind: 'time-of-day',
  schema: timeOfDaySchema,
  compile({ time_zone, windows }, { clock }) {
    const readWallClock = wallClockIn(time_zone);
    return (_request, explain) => {
      const now = readWallClock(clock.now());
      const open = isOpen(windows, now.day, now.minute);
      explain?.(`${now.label} ${time_zone} is ${open ? 'inside' : 'outside'} that day's windows (${spansOfDay(windows, now.day)})`);
      if (open) return undefined;
      return { code: 'TIME_OF_DAY_FORBIDDEN', detail: `outside the allowed windows: ${now.label} ${time_zone}` };
    };
  },
};
