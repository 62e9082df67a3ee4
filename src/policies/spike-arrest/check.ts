import { createHash } from 'node:crypto';
import { BoundedMemo } from '../../bounded-memo.js';
import { whenKnown, type MaybePromise } from '../../maybe-promise.js';
import type { Explain, PolicyKind, PolicyRequest, Rejection, Verdict } from '../policy.js';
import { spikeArrestSchema, type SpikeArrestSettings } from './schema.js';

/**
 * SPEC 5.8 spike arrest (SPEC 7: 401). Smoothed the way the reference gateway
 * does it: a rate of N per unit becomes N windows per unit that each admit one
 * request, so 600pm is one request per 100 ms and a client cannot spend a
 * minute's allowance in its first second. `burst` adds a second allowance per
 * unit, spent only when a request finds its window taken.
 *
 * The clock counts milliseconds, so a window is never shorter than one:
 * above one request per millisecond (1000ps), each 1 ms window admits
 * rate / 1000 requests (the schema accepts only whole multiples there).
 *
 * Windows are numbered from the injected clock and counted in the gateway's
 * store (store/types.ts, WindowCounter): in memory, synchronously, so a
 * known caller's request is judged without a promise; on Redis when
 * configured, with an in-memory insurance limiter while Redis is away.
 * Counting a refused request only ever pushes a full window further past its
 * limit, so refusals do not consume the allowance of later windows.
 */
export const spikeArrest: PolicyKind<typeof spikeArrestSchema> = {
  kind: 'spike-arrest',
  schema: spikeArrestSchema,
  compile(settings, { clock, windowCounter }) {
    const { count, unitMs, text } = settings.rate;
    const windowsPerUnit = Math.min(count, unitMs);
    const windowMs = unitMs / windowsPerUnit;
    const perWindow = count / windowsPerUnit;
    const windows = windowCounter({ name: `spike:${settings.name}:${text}`, points: perWindow, durationSeconds: Math.max(1, Math.ceil(windowMs / 1000)) });
    const bursts =
      settings.burst > 0
        ? windowCounter({ name: `spike-burst:${settings.name}:${text}:${settings.burst}`, points: settings.burst, durationSeconds: unitMs / 1000 })
        : undefined;

    /** Refused until the next window opens: Retry-After in whole seconds, at least one. */
    const refusal = (now: number, unit: number, slot: number): Rejection => {
      const nextWindowAt = unit * unitMs + Math.ceil(((slot + 1) * unitMs) / windowsPerUnit);
      return arrested(settings, Math.max(1, Math.ceil((nextWindowAt - now) / 1000)));
    };
    // The current window's name, made once per window: its requests share one string, which the memory counter
    // finds equal to the one it holds at once (the same string), where a string per request was built, flattened and
    // compared character by character.
    let namedWindow = Number.NaN;
    let windowName = '';
    const nameOf = (unit: number, slot: number): string => {
      const window = unit * windowsPerUnit + slot; // slot < windowsPerUnit: one number per window
      if (window !== namedWindow) {
        namedWindow = window;
        windowName = `${unit}.${slot}`;
      }
      return windowName;
    };
    const judge = (caller: string, explain: Explain | undefined): MaybePromise<Verdict> => {
      const now = clock.now();
      // Window `slot` of unit `unit`: whole-number arithmetic, exact for any rate (30ps has windows of 33.3 ms).
      const unit = Math.floor(now / unitMs);
      const slot = Math.floor(((now - unit * unitMs) * windowsPerUnit) / unitMs);
      const admitted = windows.admit(caller, nameOf(unit, slot));
      // The usual answer (in memory, within the window) goes without the closure below.
      if (admitted === true && !explain) return undefined;
      return whenKnown(admitted, (inWindow): MaybePromise<Verdict> => {
        if (inWindow) {
          explain?.(`counted as ${caller}: its window of ${formatMs(windowMs)} (${text}) admits ${perWindow} and had room`);
          return undefined;
        }
        if (!bursts) return refusal(now, unit, slot);
        return whenKnown(bursts.admit(caller, `${unit}`), (inBurst) => {
          if (!inBurst) return refusal(now, unit, slot);
          explain?.(`counted as ${caller}: its window of ${formatMs(windowMs)} (${text}) was taken; the burst allowance (${settings.burst}) had room`);
          return undefined;
        });
      });
    };

    const callerOf = callerKeyOf(settings);
    // Synchronous while the caller is known and the counters answer at once (in memory): no promise per request.
    return (request, explain) => whenKnown(callerOf(request), judge, explain);
  },
};

const formatMs = (ms: number): string => `${Number.isInteger(ms) ? ms : ms.toFixed(1)} ms`;

const arrested = ({ name, rate }: SpikeArrestSettings, retryAfterSeconds: number): Rejection => ({
  code: 'SPIKE_ARREST',
  detail: `spike arrest ${name} (${rate.text}) exceeded`,
  headers: { 'Retry-After': String(retryAfterSeconds) },
});

/**
 * How the policy names the caller it counts, decided once per policy: the counter key of a caller is typed, so that a
 * user named like an address never shares its counter.
 */
function callerKeyOf({ identifier, header = '' }: SpikeArrestSettings): (request: PolicyRequest) => MaybePromise<string> {
  // One counter for the policy: nothing about the caller is looked at (no token verified, no header read).
  if (identifier === 'all') return () => 'all';
  const idOf = idReaderOf(identifier, header);
  // Each caller's key is made once and then handed out as the same string. A key made per request was a new string
  // that the counter's map flattened, hashed and compared character by character with the one it held, on every
  // protected call (about a sixth of the policy's time in a native profile: bench/README.md, "Sampled natively"). A
  // remembered key carries its hash, and the map finds it equal to its own at once. The id itself is mostly the same
  // string from one request to the next (the verified token's claim, the connection's address), so looking it up
  // hashes nothing new; a header's value is new per request and is hashed once here, as its key was. An id longer
  // than a key may be is not remembered: a client could otherwise make the memo hold 10,000 of its longest headers.
  const byId = new BoundedMemo((id) => `${identifier}:${id}`);
  const byAddress = new BoundedMemo((address) => `ip:${address}`);
  const keyOf = (id: string | undefined, request: PolicyRequest): string => {
    if (id === undefined || id === '') return byAddress.of(request.clientAddress);
    return id.length <= MAX_KEY_ID ? byId.of(id) : `${identifier}:${hashedId(id)}`;
  };
  return (request) => whenKnown(idOf(request), keyOf, request);
}

/** What identifies the caller in a request; none (`ip`, or nothing sent) counts it by its address. */
function idReaderOf(identifier: Exclude<SpikeArrestSettings['identifier'], 'all'>, header: string): (request: PolicyRequest) => MaybePromise<string | undefined> {
  switch (identifier) {
    case 'client_id':
      return (request) => request.clientId();
    case 'user':
      return (request) => request.user();
    case 'header':
      return (request) => request.req.headersDistinct[header]?.[0];
    case 'ip':
      return () => undefined;
  }
}

/** Client-chosen values (headers) can be long: keys stay short and hold no more than a hash of a longer one. */
const MAX_KEY_ID = 64;
const hashedId = (id: string): string => createHash('sha256').update(id).digest('base64url');
