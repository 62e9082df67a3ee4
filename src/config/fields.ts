import { expecting, valueText, z } from './zod.js';
import { AddressRanges, parseCidr } from '../net/address-range.js';
import { durationText, parseDuration, parseSize } from './units.js';

/** The name of a policy: how policy files define it and gateway.yaml and accounts.yaml attach it. */
export const POLICY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

// `prefault` (not `default`) so that defaults go through the same parsing as
// written values: a default duration is a string like any other.
//
// The `x-format` metadata names the kind of value for the configuration
// reference that `npm run docs` writes (src/docs/); parsing never reads it.

/**
 * The longest wait of a duration that becomes a timer, in whole days. node's
 * timers cannot wait past 2^31-1 ms (about 24.8 days): a longer one fires
 * after 1 ms instead, so a route `timeout: 30d` would answer 504 at once, and
 * a `brute_force.cool_down: 30d` would forget its lock as soon as it was set.
 */
export const TIMER_MAX_MS = 24 * 86_400_000;

/**
 * The longest span of a duration that dates are made from (a token's expiry,
 * a grant's, a key's schedule), in whole days: ten years. Past a few hundred
 * thousand years a Date cannot be written at all (`toISOString` throws), and
 * well before that a key's schedule, built from several intervals, would
 * reach it: `refresh_ttl: 100000000d` passed `check` and then broke the admin
 * API's grants list, as a rotation interval that long broke its keys list.
 */
export const DATE_SPAN_MAX_MS = 3650 * 86_400_000;

/**
 * `timer`: the value is waited for with a timer, and is bounded by TIMER_MAX_MS too.
 * `date`: dates are made from the value, and it is bounded by DATE_SPAN_MAX_MS too.
 */
export const duration = (fallback: string, { min = 1, max = Number.MAX_SAFE_INTEGER, timer = false, date = false } = {}) =>
  durationWithin(fallback, min, Math.min(max, timer ? TIMER_MAX_MS : max, date ? DATE_SPAN_MAX_MS : max));

const DURATION_EXPECTED = 'expected a duration like 500ms, 2s, 30m or 24h';

/** Number.MAX_SAFE_INTEGER milliseconds, in whole years: the longest duration counted exactly. */
const DURATION_LIMIT_YEARS = Math.floor(Number.MAX_SAFE_INTEGER / (365 * 86_400_000)).toLocaleString('en-US');

const durationWithin = (fallback: string, min: number, max: number) =>
  z
    .string({ error: expecting(DURATION_EXPECTED) })
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === undefined) {
        ctx.addIssue({ code: 'custom', message: `${DURATION_EXPECTED}, got "${text}"` });
        return z.NEVER;
      }
      // `9999999999999999999999d` parses to a number past any exact millisecond count: not a bound the operator chose to cross.
      if (!Number.isSafeInteger(ms)) {
        ctx.addIssue({ code: 'custom', message: `too large to be a duration (more than ${DURATION_LIMIT_YEARS} years), got ${valueText(text)}` });
        return z.NEVER;
      }
      if (ms < min || ms > max) {
        ctx.addIssue({ code: 'custom', message: `${durationBounds(min, max)}, got "${text}"` });
        return z.NEVER;
      }
      return ms;
    })
    .prefault(fallback)
    .meta({ 'x-format': 'duration', 'x-minimum-ms': min, 'x-maximum-ms': max });

function durationBounds(min: number, max: number): string {
  if (max === Number.MAX_SAFE_INTEGER) return `must be at least ${durationText(min)}`;
  const why = max === TIMER_MAX_MS ? ' (the longest a timer can wait)' : max === DATE_SPAN_MAX_MS ? ' (the longest span the gateway dates from)' : '';
  return `must be between ${durationText(min)} and ${durationText(max)}${why}`;
}

export const size = (fallback: string) =>
  z
    .union([z.number().int().positive(), z.string()])
    .transform((value, ctx) => {
      const bytes = typeof value === 'number' ? value : parseSize(value);
      if (bytes === undefined || bytes <= 0) {
        ctx.addIssue({ code: 'custom', message: `expected a size like 16kb or 1mb, got "${value}"` });
        return z.NEVER;
      }
      return bytes;
    })
    .prefault(fallback)
    .meta({ 'x-format': 'size' });

export const httpUrl = z
  .string()
  .refine((text) => {
    try {
      const url = new URL(text);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
    } catch {
      return false;
    }
  }, 'expected an http:// or https:// URL without query or fragment')
  .transform((text) => text.replace(/\/+$/, ''))
  .meta({ 'x-format': 'http-url' });

/** A file named in gateway.yaml: a relative path is resolved from the folder of gateway.yaml (config/load.ts). */
export const filePath = z.string().min(1).meta({ 'x-format': 'file' });


/** An IPv4 or IPv6 range (`10.0.0.0/8`, `2001:db8::/32`) or a lone address, parsed at load. */
const CIDR_EXPECTED = 'expected an IPv4 or IPv6 address or CIDR range like 10.0.0.0/8 or 2001:db8::/32';

export const cidr = z.string({ error: expecting(CIDR_EXPECTED) }).transform((text, ctx) => {
  const range = parseCidr(text);
  if (!range) {
    ctx.addIssue({ code: 'custom', message: `${CIDR_EXPECTED}, got "${text}"` });
    return z.NEVER;
  }
  return range;
});

/** One range or a list of them, compiled into AddressRanges. */
export const cidrList = z
  .preprocess((value) => (typeof value === 'string' ? [value] : value), z.array(cidr))
  .transform((ranges) => new AddressRanges(ranges))
  .meta({ 'x-format': 'address-ranges' });
