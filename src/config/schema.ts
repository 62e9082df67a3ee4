import { z } from 'zod';
import { DEFAULTS, MAX_CLOCK_LEEWAY_MS } from './defaults.js';
import { parseDuration, parseSize } from './units.js';

// `prefault` (not `default`) so that defaults go through the same parsing as
// written values: a default duration is a string like any other.

const duration = (fallback: string, { min = 1, max = Number.MAX_SAFE_INTEGER } = {}) =>
  z
    .string()
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === undefined) {
        ctx.addIssue({ code: 'custom', message: `expected a duration like 500ms, 2s, 30m or 24h, got "${text}"` });
        return z.NEVER;
      }
      if (ms < min || ms > max) {
        ctx.addIssue({ code: 'custom', message: `must be between ${min}ms and ${max}ms, got "${text}"` });
        return z.NEVER;
      }
      return ms;
    })
    .prefault(fallback);

const size = (fallback: string) =>
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
    .prefault(fallback);

const httpUrl = z
  .string()
  .refine((text) => {
    try {
      const url = new URL(text);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
    } catch {
      return false;
    }
  }, 'expected an http:// or https:// URL without query or fragment')
  .transform((text) => text.replace(/\/+$/, ''));

const route = z.strictObject({
  path: z
    .string()
    .regex(/^\/[^?#\s]*$/, 'expected a path prefix starting with "/" (no query, fragment or spaces)')
    .describe('Path prefix matched on segment boundaries; the request path is forwarded unchanged.'),
  upstream: httpUrl.describe('Base URL of the backend that receives matching requests.'),
  timeout: duration(DEFAULTS.route.timeout).describe('Idle time allowed to the upstream before a 504.'),
});

export const gatewayConfigSchema = z.strictObject({
  listen: z
    .strictObject({
      host: z.string().min(1).default(DEFAULTS.listen.host),
      port: z.number().int().min(0).max(65535).default(DEFAULTS.listen.port),
    })
    .prefault({}),
  issuer: httpUrl.optional().describe('Public base URL of this deployment; default http://<listen.host>:<listen.port>.'),
  store: z.literal('memory', { message: 'expected "memory" (Redis arrives in a later release)' }).default('memory'),
  accounts: z.string().min(1).default(DEFAULTS.accounts),
  tokens: z
    .strictObject({
      access_ttl: duration(DEFAULTS.tokens.access_ttl, { min: 1_000 }),
      refresh_ttl: duration(DEFAULTS.tokens.refresh_ttl, { min: 1_000 }),
      clock_leeway: duration(DEFAULTS.tokens.clock_leeway, { min: 0, max: MAX_CLOCK_LEEWAY_MS }),
      audience: z.string().min(1).optional().describe('The `aud` of access tokens; default the issuer.'),
    })
    .prefault({}),
  keys: z
    .strictObject({
      algorithm: z.enum(['ES256', 'RS256', 'PS256', 'EdDSA']).default('ES256'),
      rotation_interval: duration(DEFAULTS.keys.rotation_interval, { min: 100 }),
    })
    .prefault({}),
  limits: z
    .strictObject({
      body_size: size(DEFAULTS.limits.body_size),
      oauth_body_size: size(DEFAULTS.limits.oauth_body_size),
      json_depth: z.number().int().min(1).max(1000).default(DEFAULTS.limits.json_depth),
      headers_timeout: duration(DEFAULTS.limits.headers_timeout, { min: 100 }),
      request_timeout: duration(DEFAULTS.limits.request_timeout, { min: 100 }),
      keep_alive_timeout: duration(DEFAULTS.limits.keep_alive_timeout, { min: 100 }),
    })
    .prefault({}),
  routes: z.array(route).default([]),
  log: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    })
    .prefault({}),
}).superRefine((config, ctx) => {
  const seen = new Set<string>();
  config.routes.forEach((route, index) => {
    const path = ['routes', index, 'path'];
    if (seen.has(route.path)) ctx.addIssue({ code: 'custom', path, message: `"${route.path}" is already routed by an earlier entry` });
    seen.add(route.path);
    if (overlapsTokenService(route.path)) {
      ctx.addIssue({ code: 'custom', path, message: `"${route.path}" overlaps the token service's own paths (/oauth2, /.well-known)` });
    }
  });
  if (config.limits.headers_timeout > config.limits.request_timeout) {
    ctx.addIssue({ code: 'custom', path: ['limits', 'headers_timeout'], message: 'must not be longer than limits.request_timeout' });
  }
  if (config.tokens.refresh_ttl < config.tokens.access_ttl) {
    ctx.addIssue({ code: 'custom', path: ['tokens', 'refresh_ttl'], message: 'must not be shorter than tokens.access_ttl' });
  }
});

const RESERVED_PREFIXES = ['/oauth2', '/.well-known'];

/** True when a route would match a path under /oauth2 or /.well-known (a catch-all `/` would). */
function overlapsTokenService(path: string): boolean {
  const base = path.replace(/\/+$/, '');
  return RESERVED_PREFIXES.some((reserved) => base === '' || base === reserved || base.startsWith(`${reserved}/`) || reserved.startsWith(`${base}/`));
}

type ParsedConfig = z.output<typeof gatewayConfigSchema>;

/** The validated, frozen configuration; `accounts` is an absolute path. */
export type GatewayConfig = Readonly<ParsedConfig>;
export type RouteConfig = GatewayConfig['routes'][number];
