import { setTimeout as pause } from 'node:timers/promises';

export interface EventuallyOptions {
  /** How long to keep asking before failing (default 5 s). */
  timeoutMs?: number;
  /** The pause between two asks (default 20 ms). */
  intervalMs?: number;
  /** What the test waits for, in words: the failure says it. Defaults to the check's source; a function is asked at the failure. */
  what?: string | (() => string);
}

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * The one bounded poll of the suite: asks `check` until it returns something
 * truthy and resolves with that, or fails after `timeoutMs` naming what it
 * waited for and the last answer (or error) it got. A check that throws counts
 * as "not yet" (a server still starting refuses connections).
 *
 * For what happens in other processes or across sockets (Redis pub/sub, a
 * child gateway's log, a file watcher); where time is the subject, advance a
 * ManualClock instead.
 */
export async function eventually<T>(check: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<Truthy<T>> {
  const { timeoutMs = 5_000, intervalMs = 20, what = String(check) } = options;
  const deadline = Date.now() + timeoutMs;
  let last: { value: unknown } | { error: unknown } = { value: undefined };
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Truthy<T>;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() >= deadline) {
      const seen = 'error' in last ? `last error: ${(last.error as Error)?.message ?? String(last.error)}` : `last answer: ${describe(last.value)}`;
      throw new Error(`waited ${timeoutMs} ms for ${typeof what === 'function' ? what() : what}; ${seen}`);
    }
    await pause(intervalMs);
  }
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
