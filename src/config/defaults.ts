/**
 * Every default of gateway.yaml in one place, each with the reason for its
 * value. The reason is a string rather than a comment so that the
 * configuration reference in docs/configuration.md prints it (`npm run docs`);
 * the code reads the values only, through DEFAULTS.
 */

/** A default value and why it is that value. */
export interface Reasoned<T> {
  readonly value: T;
  readonly why: string;
}

const reasoned = <const T extends string | number | boolean>(value: T, why: string): Reasoned<T> => Object.freeze({ value, why });

/** The tree of reasons, shaped like gateway.yaml (with `redis` for `store.redis` and `route` for `routes[]`). */
export const DEFAULT_REASONS = Object.freeze({
  listen: {
    host: reasoned('127.0.0.1', 'Loopback: a fresh install must not be reachable from the network by accident.'),
    port: reasoned(8080, "The port the README's curl walk-through uses."),
  },
  admin: {
    host: reasoned('127.0.0.1', "Loopback, as Envoy's and Kong's admin listeners: metrics and the admin API are for the operator's own tooling."),
    port: reasoned(9901, "Envoy's admin port, familiar to operators; clear of 8080 (gateway), 8081 (demo upstream) and 9090 (Prometheus)."),
  },
  tls: {
    port: reasoned(8443, 'The usual alternative HTTPS port for a service that does not run as root.'),
  },
  workers: reasoned(1, 'One process works with every store; more than one needs the shared store (store: redis).'),
  store: reasoned('memory', 'One process, no dependencies; `redis://...` when several instances must act as one.'),
  redis: {
    command_timeout: reasoned('1s', 'Every store call gives up after this, whatever the Redis client retries: a slow or lost Redis answers 503 instead of piling up work.'),
    connect_timeout: reasoned('2s', 'A connection attempt that takes longer is abandoned and retried with back-off.'),
    resync_interval: reasoned('30s', 'Full reload of the revocation list and key ring, closing any gap pub/sub left (missed messages, partitions).'),
    max_pending: reasoned(1000, 'Store commands in flight per instance before new ones are refused with 503 rather than queued.'),
  },
  accounts: reasoned('./accounts.yaml', 'Beside gateway.yaml, resolved relative to the config file.'),
  tokens: {
    // SPEC 2.1 rules 1 and 2, section 8 (docs/http-contract.md).
    access_ttl: reasoned('30m', 'The service contract: access tokens live 30 minutes.'),
    refresh_ttl: reasoned('24h', 'The service contract: refresh tokens live 24 hours.'),
    clock_leeway: reasoned('5s', 'Tolerates small clock drift between token issuer and validator without extending lifetimes meaningfully.'),
    refresh_grace: reasoned(
      '30s',
      "Okta's default (its range and Cognito's are 0-60 s): room for the client SDK's 10 s request timeout and its one retry, or a 503 after a Redis command timeout and a retry after Retry-After, while a replay half a minute after a rotation is still treated as theft.",
    ),
  },
  keys: {
    algorithm: reasoned('ES256', 'ES256: ~10,000 signatures/s against ~1,300 for RS256 on our machines, with a 64-byte signature.'),
    rotation_interval: reasoned('24h', 'Daily rotation bounds the exposure of one key; each key is published a full interval before the schedule lets it sign.'),
  },
  limits: {
    body_size: reasoned('1mb', 'Proxied bodies: generous for JSON APIs, small enough that a flood cannot exhaust memory upstream.'),
    oauth_body_size: reasoned('16kb', 'Token and revocation requests carry four short strings; nothing legitimate comes near 16 KiB.'),
    json_depth: reasoned(32, 'Deeper than any real credential document; refused before JSON.parse sees it.'),
    headers_timeout: reasoned('10s', 'Slowloris protection: a client has this long to send its request headers.'),
    request_timeout: reasoned('30s', 'A client has this long to send its whole request.'),
    keep_alive_timeout: reasoned('5s', "Slightly above common load balancers' idle timeouts would cause races; below is safe."),
    shutdown_grace: reasoned('10s', "SIGTERM: in-flight requests get this long to finish, below Kubernetes' default 30 s grace period."),
  },
  policies: reasoned('./policies', 'Beside gateway.yaml; a folder that does not exist is an empty policy set.'),
  brute_force: {
    max_failures_per_username: reasoned(10, 'Failed passwords for one username before it is locked; a person mistyping stays far below.'),
    max_failures_per_address: reasoned(100, 'Failed passwords from one address before it is locked: high, because offices and mobile carriers share addresses.'),
    window: reasoned('15m', 'Failures are counted within this window.'),
    cool_down: reasoned('15m', 'How long a locked username or address is refused, whatever it sends.'),
  },
  oauth: {
    form_encoded: reasoned(
      false,
      "Off: the token and revocation endpoints speak the service contract's wire format only (JSON body, parameters as headers, 415 for a form); standard OAuth form bodies are an operator's opt-in.",
    ),
  },
  route: {
    timeout: reasoned('30s', 'An upstream that has sent nothing for this long is answered with 504.'),
  },
  log: {
    level: reasoned('info', 'One access line per request at info; debug adds internal detail (never secrets).'),
  },
});

type Values<T> = { readonly [K in keyof T]: T[K] extends Reasoned<infer V> ? V : Values<T[K]> };

function valuesOf<T extends object>(tree: T): Values<T> {
  const values = Object.entries(tree).map(([key, node]) => [key, isReasoned(node) ? node.value : valuesOf(node as object)]);
  return Object.freeze(Object.fromEntries(values)) as Values<T>;
}

/** True for a leaf of DEFAULT_REASONS. */
export function isReasoned(node: unknown): node is Reasoned<string | number | boolean> {
  return typeof node === 'object' && node !== null && 'value' in node && 'why' in node;
}

/** The values alone, as the schema reads them: `DEFAULTS.listen.port` is 8080. */
export const DEFAULTS = valuesOf(DEFAULT_REASONS);

/** The hard ceiling for `tokens.clock_leeway`: more would silently extend token lifetimes. */
export const MAX_CLOCK_LEEWAY_MS = 60_000;

/**
 * The hard ceiling for `tokens.refresh_grace`: the strictest peers' (Okta's and
 * Cognito's maximum). A longer window is a longer time in which a stolen,
 * just-rotated refresh token is answered instead of detected.
 */
export const MAX_REFRESH_GRACE_MS = 60_000;

/**
 * Retries answered per rotation within `tokens.refresh_grace`, after which a
 * further presentation is theft (Ory Hydra bounds its grace period with a
 * count the same way). One lost answer needs one retry (the client SDK makes
 * exactly one); the rest covers a few threads or pods of one service
 * refreshing at the same moment. More than that is not a retry.
 */
export const REFRESH_GRACE_RETRIES = 5;
