import { z } from 'zod';
import { DEFAULTS, MAX_CLOCK_LEEWAY_MS } from './defaults.js';
import { cidrList, duration, httpUrl, POLICY_NAME, size } from './fields.js';
import { POLICY_ENDPOINTS, RESERVED_PREFIXES, type PolicyEndpoint } from './paths.js';
import { describeStore, storeSchema } from './store-schema.js';

/** Names of policies (from the policies folder), in the order they run. */
export const policyNames = z
  .array(z.string().regex(POLICY_NAME, 'expected the name of a policy defined in the policies folder'))
  .default([]);

const policies = z
  .union([
    z.string().min(1).transform((folder) => ({ folder, defaults: [] as string[], endpoints: {} as Partial<Record<PolicyEndpoint, string[]>> })),
    z.strictObject({
      folder: z.string().min(1).default(DEFAULTS.policies).describe('The folder of policy files (*.yaml, *.yml), watched for changes.'),
      defaults: policyNames.describe('Run first on every route and OAuth endpoint.'),
      endpoints: z
        .strictObject(Object.fromEntries(POLICY_ENDPOINTS.map((path) => [path, policyNames.optional()])) as Record<PolicyEndpoint, z.ZodOptional<typeof policyNames>>)
        .default({})
        .describe('Policies of the token service endpoints, run after the defaults.'),
    }),
  ])
  .prefault(DEFAULTS.policies);

const route = z.strictObject({
  path: z
    .string()
    .regex(/^\/[^?#\s]*$/, 'expected a path prefix starting with "/" (no query, fragment or spaces)')
    .describe('Path prefix matched on segment boundaries; the request path is forwarded unchanged.'),
  upstream: httpUrl.describe('Base URL of the backend that receives matching requests.'),
  timeout: duration(DEFAULTS.route.timeout).describe('Idle time allowed to the upstream before a 504.'),
  policies: policyNames.describe('Run after the defaults, in this order, before the request is forwarded.'),
});

export const gatewayConfigSchema = z.strictObject({
  listen: z
    .strictObject({
      host: z.string().min(1).default(DEFAULTS.listen.host),
      port: z.number().int().min(0).max(65535).default(DEFAULTS.listen.port),
    })
    .prefault({}),
  admin: z
    .strictObject({
      host: z.string().min(1).default(DEFAULTS.admin.host),
      port: z.number().int().min(0).max(65535).default(DEFAULTS.admin.port),
      token_file: z
        .string()
        .min(1)
        .optional()
        .describe('File holding the bearer token the admin API (not metrics or probes) requires; needed when host is not loopback.'),
    })
    .prefault({})
    .describe('The admin listener: /metrics, /livez, /readyz and the admin API used by the CLI.'),
  tls: z
    .strictObject({
      host: z.string().min(1).optional().describe('Default: listen.host.'),
      port: z.number().int().min(0).max(65535).default(DEFAULTS.tls.port),
      cert_file: z.string().min(1).describe('PEM certificate chain, leaf first; re-read when it changes.'),
      key_file: z.string().min(1).describe('PEM private key of the certificate; re-read when it changes.'),
    })
    .optional()
    .describe('An HTTPS listener beside the plain HTTP one.'),
  workers: z
    .union([z.literal('auto'), z.number().int().min(1).max(256)])
    .default(1)
    .describe('Gateway processes sharing the port (node:cluster): a number, or auto for one per core. More than one needs store: redis.'),
  issuer: httpUrl.optional().describe('Public base URL of this deployment; default http://<listen.host>:<listen.port>.'),
  environment: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'expected a short lower-case name like sandbox, uat or production')
    .optional()
    .describe('Prefixes every Redis key, so environments sharing a Redis never see each other; required with Redis.'),
  store: storeSchema,
  accounts: z.string().min(1).default(DEFAULTS.accounts),
  tokens: z
    .strictObject({
      access_ttl: duration(DEFAULTS.tokens.access_ttl, { min: 1_000 }),
      refresh_ttl: duration(DEFAULTS.tokens.refresh_ttl, { min: 1_000 }),
      clock_leeway: duration(DEFAULTS.tokens.clock_leeway, { min: 0, max: MAX_CLOCK_LEEWAY_MS }),
      audience: z.string().min(1).optional().describe('The `aud` of access tokens; default the issuer.'),
      trusted_issuers: z
        .array(httpUrl)
        .default([])
        .describe("Other regions' issuers of the same environment whose tokens this host accepts (shared store and key ring)."),
    })
    .prefault({}),
  keys: z
    .strictObject({
      algorithm: z.enum(['ES256', 'RS256', 'PS256', 'EdDSA']).default('ES256'),
      rotation_interval: duration(DEFAULTS.keys.rotation_interval, { min: 100 }),
      encryption_key_file: z
        .string()
        .min(1)
        .optional()
        .describe('File holding the base64 32-byte key that encrypts private keys in Redis (or TOKEN_GATEWAY_KEY_ENCRYPTION_KEY).'),
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
      shutdown_grace: duration(DEFAULTS.limits.shutdown_grace, { min: 0 }),
    })
    .prefault({}),
  routes: z.array(route).default([]),
  policies,
  trusted_proxies: cidrList
    .prefault([])
    .describe('Load balancers and proxies in front of the gateway: only their X-Forwarded-For entries are believed.'),
  brute_force: z
    .strictObject({
      max_failures_per_username: z.number().int().min(0).default(DEFAULTS.brute_force.max_failures_per_username),
      max_failures_per_address: z.number().int().min(0).default(DEFAULTS.brute_force.max_failures_per_address),
      window: duration(DEFAULTS.brute_force.window, { min: 1_000 }),
      cool_down: duration(DEFAULTS.brute_force.cool_down, { min: 1_000 }),
    })
    .prefault({})
    .describe('Failed password attempts locking a username or a client address for a cool-down; 0 turns a counter off.'),
  oauth: z
    .strictObject({
      form_encoded: z
        .boolean()
        .default(DEFAULTS.oauth.form_encoded)
        .describe(
          'Also accept RFC 6749 application/x-www-form-urlencoded requests on the token endpoint (password and refresh grants, ' +
            'client_secret_basic or client_secret_post) and RFC 7009 form requests on the revocation endpoint, so that standard ' +
            "OAuth 2.0 client libraries work unmodified. The spec's JSON and header format is always accepted. " +
            'accounts.yaml `apps[].form_encoded` overrides it per app.',
        ),
    })
    .prefault({})
    .describe('How the token service speaks OAuth 2.0 beside the spec\'s wire format (docs/standard-oauth-clients.md).'),
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
      ctx.addIssue({ code: 'custom', path, message: `"${route.path}" overlaps the gateway's own paths (${RESERVED_PREFIXES.join(', ')})` });
    }
  });
  if (config.store.kind === 'redis' && config.environment === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['environment'],
      message: `is required with a Redis store (${describeStore(config.store)}), so that environments sharing it never see each other's tokens`,
    });
  }
  if (config.store.kind === 'memory' && config.workers !== 1) {
    ctx.addIssue({
      code: 'custom',
      path: ['workers'],
      message:
        'more than one worker needs a shared store (store: redis): with the in-memory store each worker would keep its own refresh tokens, revocations and keys, so a token issued by one would be refused by the next',
    });
  }
  if (config.limits.headers_timeout > config.limits.request_timeout) {
    ctx.addIssue({ code: 'custom', path: ['limits', 'headers_timeout'], message: 'must not be longer than limits.request_timeout' });
  }
  if (config.tokens.refresh_ttl < config.tokens.access_ttl) {
    ctx.addIssue({ code: 'custom', path: ['tokens', 'refresh_ttl'], message: 'must not be shorter than tokens.access_ttl' });
  }
});

/** True when a route would match a path the gateway serves itself (a catch-all `/` would). */
function overlapsTokenService(path: string): boolean {
  const base = path.replace(/\/+$/, '');
  return RESERVED_PREFIXES.some((reserved) => base === '' || base === reserved || base.startsWith(`${reserved}/`) || reserved.startsWith(`${base}/`));
}

type ParsedConfig = z.output<typeof gatewayConfigSchema>;

/** The validated, frozen configuration; `accounts` and `policies.folder` are absolute paths. */
export type GatewayConfig = Readonly<ParsedConfig & { /** The file it was read from, for messages. */ source: string }>;
export type RouteConfig = GatewayConfig['routes'][number];
