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
      if (open) {
        explain?.(`${now.label} ${time_zone} is inside that day's windows (${spansOfDay(windows, now.day)})`);
        return undefined;
      }
      // A refusal's detail already names the local time and zone; the dry run adds only the day's windows.
      explain?.(`that day's windows: ${spansOfDay(windows, now.day)}`);
      return { code: 'TIME_OF_DAY_FORBIDDEN', detail: `outside the allowed windows: ${now.label} ${time_zone}` };
    };
  },
};
