import { DEFAULT_RENEW_AFTER_MS } from './renewal-schedule.js';
import type { FetchLike, TokenEndpointContext } from './token-endpoint.js';

/** Settings of a {@link TokenClient}. Credentials are kept in private fields and never appear in errors. */
export interface TokenClientOptions {
  /** The gateway of the chosen environment and region (SPEC 1), e.g. `https://sandbox-us-api.example.com`. */
  baseUrl: string | URL;
  /** The application's credentials (SPEC 2.2). */
  clientId: string;
  clientSecret: string;
  /** The developer or service account (SPEC 2.2). */
  username: string;
  password: string;
  /** The fetch to use for every request; default `globalThis.fetch`. */
  fetch?: FetchLike;
  /** The clock, in epoch milliseconds; default `Date.now`. Tests freeze it. */
  now?: () => number;
  /**
   * How long after it was requested a 30-minute access token is renewed;
   * default 28 minutes (SPEC 5.5). Tokens with another lifetime are renewed at
   * the same proportion, at most this long after, and never within 10 s of expiry.
   */
  renewAfterMs?: number;
  /** Time allowed for one token or revocation request, answer included; default 10 s. */
  timeoutMs?: number;
  /**
   * Origins other than `baseUrl`'s that `fetch` may send the access token to,
   * e.g. other regions of the same environment that trust this one's tokens.
   */
  apiOrigins?: ReadonlyArray<string | URL>;
}

export interface ClientSettings {
  endpoint: TokenEndpointContext;
  user: { username: string; password: string };
  now: () => number;
  renewAfterMs: number;
  allowedOrigins: ReadonlySet<string>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
// The longest delay a timer holds (about 24.8 days): AbortSignal.timeout turns
// anything longer into 1 ms, which would fail every request at once.
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** Checks the options once, at construction, so that a mistake shows where the client is made. */
export function readOptions(options: TokenClientOptions): ClientSettings {
  if (typeof options !== 'object' || options === null) throw new TypeError('the options must be an object: baseUrl, clientId, clientSecret, username, password');
  const base = urlOption(options.baseUrl, 'baseUrl');
  if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new TypeError('baseUrl must be an http:// or https:// URL');
  if (base.search || base.hash) throw new TypeError('baseUrl must not have a query or fragment');
  if (base.username || base.password) throw new TypeError('baseUrl must not hold credentials: use clientId and clientSecret');
  const baseUrl = base.href.replace(/\/+$/, '');
  const fetch = options.fetch === undefined ? defaultFetch() : functionOption(options.fetch, 'fetch');
  return {
    endpoint: {
      fetch,
      baseUrl,
      timeoutMs: Math.min(positive(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs'), LONGEST_TIMER_MS),
      // SPEC 4.4: both travel as headers on the refresh grant.
      clientId: headerSafe(options.clientId, 'clientId'),
      clientSecret: headerSafe(options.clientSecret, 'clientSecret'),
    },
    user: { username: present(options.username, 'username'), password: present(options.password, 'password') },
    now: options.now === undefined ? Date.now : functionOption(options.now, 'now'),
    renewAfterMs: positive(options.renewAfterMs ?? DEFAULT_RENEW_AFTER_MS, 'renewAfterMs'),
    allowedOrigins: new Set([base.origin, ...apiOriginsOf(options.apiOrigins)]),
  };
}

/**
 * A URL option, parsed. URL's own error carries the whole input, and a
 * malformed base URL may hold credentials (`https://app:secret@host name`):
 * the message names the option, never the value.
 */
function urlOption(value: unknown, name: string): URL {
  if (typeof value !== 'string' && !(value instanceof URL)) throw new TypeError(`${name} must be a URL (a string or a URL object)`);
  try {
    return new URL(String(value));
  } catch {
    throw new TypeError(`${name} is not an absolute URL such as https://api.example.com`);
  }
}

function apiOriginsOf(origins: unknown): string[] {
  if (origins === undefined) return [];
  if (!Array.isArray(origins)) throw new TypeError('apiOrigins must be a list of URLs');
  return origins.map((origin, index) => urlOption(origin, `apiOrigins[${index}]`).origin);
}

function functionOption<T>(value: T, name: string): T {
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function`);
  return value;
}

function defaultFetch(): FetchLike {
  if (typeof globalThis.fetch !== 'function') throw new TypeError('no global fetch in this runtime: pass the fetch option');
  // Looked up per call, so that a fetch installed later (or a test's) is the one used.
  return (input, init) => globalThis.fetch(input, init);
}

// The value is never quoted in these messages: it may be a secret.
function present(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
  return value;
}

function headerSafe(value: unknown, name: string): string {
  const text = present(value, name);
  if (!/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(text)) {
    throw new TypeError(`${name} must be printable ASCII without leading or trailing spaces: it is sent as an HTTP header`);
  }
  return text;
}

function positive(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new TypeError(`${name} must be a positive number of milliseconds`);
  return value;
}
