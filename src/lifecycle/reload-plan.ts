import { isDeepStrictEqual } from 'node:util';
import type { GatewayConfig } from '../config/schema.js';

type TopKey = Exclude<keyof GatewayConfig, 'source'>;

/**
 * Every top-level key of gateway.yaml, and whether a reload applies it
 * (`live`) or only a restart does, with the reason. docs/operations.md
 * prints this table (`npm run docs`); a test checks that the schema has no
 * key missing here.
 */
export const RELOAD_RULES: Readonly<Record<TopKey, { readonly live: boolean; readonly why: string }>> = {
  listen: { live: false, why: 'the socket is bound at start' },
  admin: {
    live: false,
    why: 'its socket and the `token_file` path are fixed at start; the token in the file is re-read by every reload, and an unreadable or too short one keeps the current token',
  },
  tls: { live: false, why: 'host, port and file paths: the HTTPS socket is bound at start (the files\' contents are reloaded when they change)' },
  workers: { live: false, why: 'the processes are forked at start' },
  issuer: { live: false, why: 'it is in every token issued and every published URL' },
  environment: { live: false, why: 'it prefixes every key of the store' },
  store: { live: false, why: 'the store is connected at start' },
  accounts: { live: false, why: 'the path of the file (its contents are reloaded)' },
  tokens: { live: false, why: 'lifetimes, audience and issuers are bound into the key ring and token verification' },
  keys: { live: false, why: 'the key ring is built at start' },
  limits: {
    live: true,
    why: 'read per request and per connection: body sizes and JSON depth per request, timeouts from the next request or connection, `shutdown_grace` at the next stop; not the TLS handshake timeout, fixed when the HTTPS listener is created',
  },
  routes: { live: true, why: 'the route table is rebuilt' },
  policies: { live: true, why: 'the policy set is rebuilt (`folder`, `defaults`, `endpoints` and the policy files)' },
  trusted_proxies: { live: true, why: 'read per request' },
  brute_force: { live: true, why: 'the counters are rebuilt (on the memory store a changed threshold starts its counters from zero)' },
  oauth: { live: true, why: 'read per request; discovery and the OpenAPI document are rebuilt (clients may cache discovery for an hour)' },
  log: { live: true, why: 'the level is set on the running logger' },
};

export interface ReloadPlan {
  /** The config to run: the new file with every restart-only key at its running value. */
  readonly config: GatewayConfig;
  /** Keys that changed and are applied, e.g. `routes`, `limits.body_size`. */
  readonly changed: readonly string[];
  /** Keys that changed but need a restart; their running value stays. */
  readonly needsRestart: readonly string[];
}

/** Compares the running config with a freshly loaded one, key by key; never looks at values beyond equality. */
export function planReload(running: GatewayConfig, next: GatewayConfig): ReloadPlan {
  const changed: string[] = [];
  const needsRestart: string[] = [];
  const kept: Partial<Record<TopKey, unknown>> = {};
  for (const key of Object.keys(RELOAD_RULES) as TopKey[]) {
    const differences = changedPaths(running[key], next[key], key);
    if (RELOAD_RULES[key].live) changed.push(...differences);
    else {
      needsRestart.push(...differences);
      kept[key] = running[key];
    }
  }
  return { config: Object.freeze({ ...next, ...kept }) as GatewayConfig, changed, needsRestart };
}

/** The dotted paths under which two values differ: into plain objects, whole for lists and anything else. */
function changedPaths(before: unknown, after: unknown, path: string): string[] {
  if (isDeepStrictEqual(before, after)) return [];
  if (!isPlainObject(before) || !isPlainObject(after)) return [path];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].flatMap((key) => changedPaths(before[key], after[key], `${path}.${key}`));
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
