import { z } from './zod.js';
import { DEFAULTS, MAX_CLOCK_LEEWAY_MS, MAX_REFRESH_GRACE_MS, REFRESH_GRACE_RETRIES } from './defaults.js';
import { cidrList, duration, filePath, httpUrl, POLICY_NAME, size } from './fields.js';
import { POLICY_ENDPOINTS, RESERVED_PREFIXES, type PolicyEndpoint } from './paths.js';
import { describeStore, storeSchema } from './store-schema.js';

/** Names of policies (from the policies folder), in the order they run. */
export const policyNames = z
  .array(z.string().regex(POLICY_NAME, 'expected the name of a policy defined in the policies folder'))
  .default([])
  .meta({ 'x-format': 'policy-names' });

const POLICIES_HINT = 'expected the policies folder, or a mapping with folder, defaults and endpoints';

// The folder shorthand becomes the object form before validation (as store: does), so a wrong
// value inside the object is reported at its own key: a union would say only that neither form fits.
const policies = z
  .preprocess(
    (value) => (typeof value === 'string' ? { folder: value } : value),
    z.strictObject(
      {
        folder: filePath.default(DEFAULTS.policies).describe('The folder of policy files (*.yaml, *.yml), watched for changes.'),
        defaults: policyNames.describe('Run first on every route and on every token service endpoint (the keys of `policies.endpoints`).'),
        endpoints: z
          .strictObject(Object.fromEntries(POLICY_ENDPOINTS.map((path) => [path, policyNames.optional()])) as Record<PolicyEndpoint, z.ZodOptional<typeof policyNames>>)
          .default({})
          .describe('Policies of the token service endpoints, run after the defaults on that endpoint.'),
      },
      { error: (issue) => (issue.code === 'invalid_type' ? POLICIES_HINT : undefined) },
    ),
  )
  .prefault(DEFAULTS.policies)
  .meta({ 'x-accepts': 'the folder, or an object' })
  .describe('The policies folder, or the object form below with the policies attached to every route and endpoint.');

const route = z.strictObject({
  path: z
    .string()
    .regex(/^\/[^?#\s]*$/, 'expected a path prefix starting with "/" (no query, fragment or spaces)')
    .describe('Path prefix matched on segment boundaries; the request path is forwarded unchanged, prefix included.'),
  upstream: httpUrl.describe('Base URL of the backend that receives matching requests.'),
  timeout: duration(DEFAULTS.route.timeout, { timer: true }).describe(
    'Time to the response headers (queueing and connecting included), then the longest silence allowed mid-response; past it, 504 or a cut connection.',
  ),
  policies: policyNames.describe('Run after the defaults, in this order, before the request is forwarded.'),
});

export const gatewayConfigSchema = z.strictObject({
  listen: z
    .strictObject({
      host: z.string().min(1).default(DEFAULTS.listen.host).describe('Address of the plain HTTP listener.'),
      port: z
        .number()
        .int()
        .min(0)
        .max(65535)
        .default(DEFAULTS.listen.port)
        .describe('Port of the plain HTTP listener; `serve --port N` overrides it.'),
    })
    .prefault({})
    .describe('The plain HTTP listener that clients call.'),
  admin: z
    .strictObject({
      host: z.string().min(1).default(DEFAULTS.admin.host).describe('Address of the admin listener.'),
      port: z
        .number()
        .int()
        .min(0)
        .max(65535)
        .default(DEFAULTS.admin.port)
        .describe('Port of the admin listener; 0 picks a free port (logged as adminUrl).'),
      token_file: filePath
        .optional()
        .describe(
          'File holding the bearer token the admin API requires (at least 16 characters, surrounding whitespace ignored; ' +
            're-read on every reload, SIGHUP). Without it, when host is not loopback, the gateway still starts but the admin API and /ops answer 403 to every caller. /metrics and the probes never need it.',
        ),
    })
    .prefault({})
    .describe('The admin listener: /metrics, /livez, /readyz and the admin API used by the CLI.'),
  tls: z
    .strictObject({
      host: z.string().min(1).optional().meta({ 'x-default': '`listen.host`' }).describe('Address of the HTTPS listener.'),
      port: z.number().int().min(0).max(65535).default(DEFAULTS.tls.port).describe('Port of the HTTPS listener.'),
      cert_file: filePath.describe('PEM certificate chain, leaf first; re-read when it changes.'),
      key_file: filePath.describe('PEM private key of the certificate; re-read when it changes.'),
    })
    .optional()
    .describe('An HTTPS listener beside the plain HTTP one; without it there is none.'),
  workers: z
    .union([z.literal('auto'), z.number().int().min(1).max(256)])
    .default(DEFAULTS.workers)
    .describe('Gateway processes sharing the port (node:cluster): a number, or auto for one per core. More than one needs store: redis (so does auto, which the memory store refuses whatever the core count).'),
  issuer: httpUrl
    .optional()
    .meta({ 'x-default': '`http://<listen.host>:<listen.port>`' })
    .describe('Public base URL of this deployment: the `iss` of every token and the base of every URL in the discovery document.'),
  environment: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'expected a short lower-case name like sandbox, uat or production')
    .optional()
    .describe('Prefixes every Redis key, so environments sharing a Redis never see each other; required with Redis.'),
  store: storeSchema,
  accounts: filePath.default(DEFAULTS.accounts).describe('The accounts file: users and apps.'),
  tokens: z
    .strictObject({
      access_ttl: duration(DEFAULTS.tokens.access_ttl, { min: 1_000, date: true }).describe('Lifetime of access tokens; sets `expires_in`.'),
      refresh_ttl: duration(DEFAULTS.tokens.refresh_ttl, { min: 1_000, date: true }).describe(
        'Lifetime of a refresh token, from its own issue; must not be shorter than access_ttl.',
      ),
      clock_leeway: duration(DEFAULTS.tokens.clock_leeway, { min: 0, max: MAX_CLOCK_LEEWAY_MS }).describe(
        'Tolerated clock skew on `exp` and `iat`.',
      ),
      refresh_grace: duration(DEFAULTS.tokens.refresh_grace, { min: 0, max: MAX_REFRESH_GRACE_MS }).describe(
        'After a refresh token is exchanged, presenting it again within this window (same client, same grant, its successor unused, ' +
          `at most ${REFRESH_GRACE_RETRIES} times) answers the same successor instead of revoking the grant: a retry after a lost answer. 0s: every second use is theft.`,
      ),
      audience: z
        .string()
        .min(1)
        .optional()
        .meta({ 'x-default': 'the issuer' })
        .describe('The `aud` of access tokens, checked at the edge.'),
      trusted_issuers: z
        .array(httpUrl)
        .default([])
        .describe("Other regions' issuers of the same environment whose tokens this host accepts (shared store and key ring)."),
    })
    .prefault({})
    .describe('The tokens this gateway issues and the issuers whose tokens it accepts.'),
  keys: z
    .strictObject({
      algorithm: z
        .enum(['ES256', 'RS256', 'PS256', 'EdDSA'])
        .default(DEFAULTS.keys.algorithm)
        .describe('The signing algorithm (EdDSA is Ed25519); a change needs a restart and applies to the keys made after it: the key already published as next keeps its algorithm, so the new one first signs one rotation later (two intervals after the change, by default).'),
      rotation_interval: duration(DEFAULTS.keys.rotation_interval, { min: 100, date: true }).describe('How long each key signs.'),
      encryption_key_file: filePath
        .optional()
        .describe(
          'With Redis, this file or the environment variable TOKEN_GATEWAY_KEY_ENCRYPTION_KEY holds the key-encryption key: ' +
            'the base64 32-byte key that encrypts the private signing keys in Redis.',
        ),
    })
    .prefault({})
    .describe('The signing keys the gateway generates and rotates itself.'),
  limits: z
    .strictObject({
      body_size: size(DEFAULTS.limits.body_size).describe('Largest proxied request body (Content-Length or chunked).'),
      oauth_body_size: size(DEFAULTS.limits.oauth_body_size).describe('Largest token or revocation request body.'),
      json_depth: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .default(DEFAULTS.limits.json_depth)
        .describe('Deepest JSON nesting accepted on the token endpoints.'),
      headers_timeout: duration(DEFAULTS.limits.headers_timeout, { min: 100, timer: true }).describe(
        'Time a client has to send the request headers; at most request_timeout.',
      ),
      request_timeout: duration(DEFAULTS.limits.request_timeout, { min: 100, timer: true }).describe('Time a client has to send the whole request.'),
      keep_alive_timeout: duration(DEFAULTS.limits.keep_alive_timeout, { min: 100, timer: true }).describe(
        'Idle keep-alive connections are closed after this (the `Keep-Alive: timeout=` the gateway announces), plus node\'s own margin of about one second so that a client reusing a connection at the announced limit is not cut mid-request.',
      ),
      shutdown_grace: duration(DEFAULTS.limits.shutdown_grace, { min: 0, timer: true }).describe(
        "On SIGTERM, in-flight requests get this long before they are cut; keep it below the orchestrator's own limit " +
          "(Kubernetes' terminationGracePeriodSeconds, 30 s by default).",
      ),
    })
    .prefault({})
    .describe('Sizes and timeouts of client requests and connections.'),
  routes: z.array(route).default([]).describe('Protected routes, forwarded once the Bearer token is valid; the longest matching prefix wins.'),
  policies,
  trusted_proxies: cidrList
    .prefault([])
    .describe(
      'Load balancers and proxies in front of the gateway: only their X-Forwarded-For (and X-Forwarded-Proto, -Host, -Port) entries are believed.',
    ),
  brute_force: z
    .strictObject({
      max_failures_per_username: z
        .number()
        .int()
        .min(0)
        .default(DEFAULTS.brute_force.max_failures_per_username)
        .describe('Failed passwords for one username within the window that lock it; 0 turns this counter off.'),
      max_failures_per_address: z
        .number()
        .int()
        .min(0)
        .default(DEFAULTS.brute_force.max_failures_per_address)
        .describe('Failed passwords from one client address within the window that lock it; 0 turns this counter off.'),
      window: duration(DEFAULTS.brute_force.window, { min: 1_000, timer: true }).describe('The time failures are counted in.'),
      cool_down: duration(DEFAULTS.brute_force.cool_down, { min: 1_000, timer: true }).describe('How long a locked username or address is refused.'),
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
      level: z
        .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default(DEFAULTS.log.level)
        .describe('The lowest level written.'),
    })
    .prefault({})
    .describe('The JSON log on standard output.'),
}).superRefine((config, ctx) => {
  // A value that already failed its own check says nothing about the others: `workers: 0` is "at least 1",
  // not also "more than one worker".
  const failed = (...path: PropertyKey[]) => ctx.issues.some((issue) => path.every((segment, at) => issue.path?.[at] === segment));
  // By prefix without its trailing slash, as routes match (proxy/routes.ts): `/a` and `/a/` serve the same paths,
  // and the second would silently never be used.
  const seen = new Map<string, string>();
  config.routes.forEach((route, index) => {
    const path = ['routes', index, 'path'];
    if (failed(...path)) return;
    const prefix = route.path.replace(/\/+$/, '');
    const earlier = seen.get(prefix);
    if (earlier !== undefined) {
      const same = earlier === route.path ? '' : ` ("${earlier}": the same prefix with or without its trailing slash)`;
      ctx.addIssue({ code: 'custom', path, message: `"${route.path}" is already routed by an earlier entry${same}` });
    } else seen.set(prefix, route.path);
    if (overlapsTokenService(route.path)) {
      ctx.addIssue({ code: 'custom', path, message: `"${route.path}" overlaps the gateway's own paths (${RESERVED_PREFIXES.join(', ')})` });
    }
  });
  if (config.store.kind === 'redis' && config.environment === undefined && !failed('environment')) {
    ctx.addIssue({
      code: 'custom',
      path: ['environment'],
      message: `is required with a Redis store (${describeStore(config.store)}), so that environments sharing it never see each other's tokens`,
    });
  }
  if (config.store.kind === 'memory' && config.workers !== 1 && !failed('store') && !failed('workers')) {
    ctx.addIssue({
      code: 'custom',
      path: ['workers'],
      message:
        'more than one worker needs a shared store (store: redis): with the in-memory store each worker would keep its own refresh tokens, revocations and keys, so a token issued by one would be refused by the next',
    });
  }
  if (config.limits.headers_timeout > config.limits.request_timeout && !failed('limits', 'headers_timeout') && !failed('limits', 'request_timeout')) {
    ctx.addIssue({ code: 'custom', path: ['limits', 'headers_timeout'], message: 'must not be longer than limits.request_timeout' });
  }
  if (config.tokens.refresh_ttl < config.tokens.access_ttl && !failed('tokens', 'refresh_ttl') && !failed('tokens', 'access_ttl')) {
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
