import { timeOfDay } from '../../../src/policies/time-of-day/check.js';
import type { CompileDeps, Verdict } from '../../../src/policies/policy.js';
import { ManualClock } from '../../helpers/clock.js';
import { policyRequest } from '../../helpers/policy-request.js';

const MINUTE = 60_000;

/** What a test writes: the YAML keys of one policy, without name and kind. */
export interface TimeOfDayYaml {
  time_zone?: string;
  windows: Array<{ days: string[]; from: string; to: string }>;
}

export interface PolicyAt {
  /** The verdict at an ISO instant (with its offset), moved by `plusMs`. */
  verdictAt(instant: string, plusMs?: number): Promise<Verdict>;
  isAllowedAt(instant: string, plusMs?: number): Promise<boolean>;
  /** Real minutes the policy lets requests through in [start, end), sampled each minute. */
  openMinutes(start: string, end: string): Promise<number>;
}

const noCounters: CompileDeps['windowCounter'] = () => {
  throw new Error('time-of-day keeps no counters');
};

/** Loads and compiles one policy once; the tests then only move its clock, as requests would find it. */
export function timeOfDayPolicy(yaml: TimeOfDayYaml): PolicyAt {
  const settings = timeOfDay.schema.parse({ name: 'opening-hours', kind: 'time-of-day', ...yaml });
  const clock = new ManualClock();
  const check = timeOfDay.compile(settings, { clock, windowCounter: noCounters });
  const request = policyRequest();
  const verdictAt = async (instant: string, plusMs = 0): Promise<Verdict> => {
    clock.advance(epochMs(instant) + plusMs - clock.now());
    return check(request);
  };
  const isAllowedAt = async (instant: string, plusMs = 0) => (await verdictAt(instant, plusMs)) === undefined;
  const openMinutes = async (start: string, end: string) => {
    let open = 0;
    for (let at = epochMs(start); at < epochMs(end); at += MINUTE) {
      if (await isAllowedAt(new Date(at).toISOString())) open++;
    }
    return open;
  };
  return { verdictAt, isAllowedAt, openMinutes };
}

function epochMs(instant: string): number {
  const ms = Date.parse(instant);
  if (Number.isNaN(ms)) throw new Error(`not an ISO instant: ${instant}`);
  return ms;
}
