/**
 * Every default of gateway.yaml in one place, each with the reason for its
 * value. The README's configuration reference repeats this file.
 */
export const DEFAULTS = Object.freeze({
  listen: {
    /** Loopback: a fresh install must not be reachable from the network by accident. */
    host: '127.0.0.1',
    /** The port the README's curl walk-through uses. */
    port: 8080,
  },
  admin: {
    /** Loopback, as Envoy's and Kong's admin listeners: metrics and the admin API are for the operator's own tooling. */
    host: '127.0.0.1',
    /** Envoy's admin port, familiar to operators; clear of 8080 (gateway), 8081 (demo upstream) and 9090 (Prometheus). */
    port: 9901,
  },
  tls: {
    /** The usual alternative HTTPS port for a service that does not run as root. */
    port: 8443,
  },
  /** One process, no dependencies; `redis://...` when several instances must act as one. */
  store: 'memory',
  redis: {
    /** Every Redis command gives up after this: a slow Redis answers 503 instead of piling up work. */
    command_timeout: '1s',
    /** A connection attempt that takes longer is abandoned and retried with back-off. */
    connect_timeout: '2s',
    /** Full reload of the revocation list and key ring, closing any gap pub/sub left (missed messages, partitions). */
    resync_interval: '30s',
    /** Store commands in flight per instance before new ones are refused with 503 rather than queued. */
    max_pending: 1000,
  },
  /** Beside gateway.yaml, resolved relative to the config file. */
  accounts: './accounts.yaml',
  tokens: {
    /** SPEC 2.1 rule 1 and section 8: access tokens live 30 minutes. */
    access_ttl: '30m',
    /** SPEC 2.1 rule 2 and section 8: refresh tokens live 24 hours. */
    refresh_ttl: '24h',
    /** Tolerates small clock drift between token issuer and validator without extending lifetimes meaningfully. */
    clock_leeway: '5s',
  },
  keys: {
    /** ES256: ~10,000 signatures/s against ~1,300 for RS256 on our machines, with a 64-byte signature. */
    algorithm: 'ES256',
    /** Daily rotation bounds the exposure of one key; each key is published a full interval before it signs. */
    rotation_interval: '24h',
  },
  limits: {
    /** Proxied bodies: generous for JSON APIs, small enough that a flood cannot exhaust memory upstream. */
    body_size: '1mb',
    /** Token and revocation requests carry four short strings; nothing legitimate comes near 16 KiB. */
    oauth_body_size: '16kb',
    /** Deeper than any real credential document; refused before JSON.parse sees it. */
    json_depth: 32,
    /** Slowloris protection: a client has this long to send its request headers. */
    headers_timeout: '10s',
    /** A client has this long to send its whole request. */
    request_timeout: '30s',
    /** Slightly above common load balancers' idle timeouts would cause races; below is safe. */
    keep_alive_timeout: '5s',
    /** SIGTERM: in-flight requests get this long to finish, below Kubernetes' default 30 s grace period. */
    shutdown_grace: '10s',
  },
  /** Beside gateway.yaml; a folder that does not exist is an empty policy set. */
  policies: './policies',
  brute_force: {
    /** Failed passwords for one username before it is locked; a person mistyping stays far below. */
    max_failures_per_username: 10,
    /** Failed passwords from one address before it is locked: high, because offices and mobile carriers share addresses. */
    max_failures_per_address: 100,
    /** Failures are counted within this window. */
    window: '15m',
    /** How long a locked username or address is refused, whatever it sends. */
    cool_down: '15m',
  },
  oauth: {
    /**
     * Off: the token and revocation endpoints speak the spec's wire format only (JSON body, parameters as headers,
     * 415 for a form), exactly the contract the reference clients and the contract tests hold. RFC 6749 form
     * bodies are an operator's opt-in (docs/standard-oauth-clients.md).
     */
    form_encoded: false,
  },
  route: {
    /** An upstream that has sent nothing for this long is answered with 504. */
    timeout: '30s',
  },
  log: {
    /** One access line per request at info; debug adds internal detail (never secrets). */
    level: 'info',
  },
});

/** The hard ceiling for `tokens.clock_leeway`: more would silently extend token lifetimes. */
export const MAX_CLOCK_LEEWAY_MS = 60_000;
