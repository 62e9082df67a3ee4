import { WEEKDAYS } from './days.js';

/** A moment as a clock on the wall of the policy's zone shows it. */
export interface WallClock {
  /** mon = 0 … sun = 6 */
  readonly day: number;
  /** Minutes after local midnight. */
  readonly minute: number;
  /** "Sat 07:59", for logs. */
  readonly label: string;
}

const SHORT_NAMES = WEEKDAYS.map((day) => day[0]?.toUpperCase() + day.slice(1));

/**
 * Why `zone` cannot be used, or undefined when it can. Intl decides which
 * names exist (it throws a RangeError on the others). Abbreviations are
 * refused although some resolve: ICU reads "EST" as a fixed UTC-5 with no
 * daylight saving, which is not what someone in New York means by it.
 */
export function zoneProblem(zone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    return `"${zone}" is not a time zone this Node.js knows: expected an IANA name like America/Chicago, Asia/Kolkata or UTC`;
  }
  if (!zone.includes('/') && zone.toUpperCase() !== 'UTC') {
    return `"${zone}" is an abbreviation or legacy alias: expected an Area/Location name like America/Chicago (Etc/GMT+6 for a fixed UTC-6, or UTC)`;
  }
  return undefined;
}

/**
 * A reader for one zone, built once per policy. It asks Intl for the local
 * weekday and time of each instant rather than adding an offset, so daylight
 * saving is always right: on the day clocks go back, 01:30 happens twice and
 * is 01:30 both times; on the day they go forward, 02:30 never happens.
 * `h23` because `hour12: false` alone shows midnight as "24" on some ICU versions.
 */
export function wallClockIn(zone: string): (epochMs: number) => WallClock {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return (epochMs) => {
    let weekday = '';
    let hour = '';
    let minute = '';
    for (const part of format.formatToParts(epochMs)) {
      if (part.type === 'weekday') weekday = part.value;
      else if (part.type === 'hour') hour = part.value;
      else if (part.type === 'minute') minute = part.value;
    }
    // An unexpected weekday name gives -1, a day with no spans: the check fails closed.
    return { day: SHORT_NAMES.indexOf(weekday), minute: Number(hour) * 60 + Number(minute), label: `${weekday} ${hour}:${minute}` };
  };
}
