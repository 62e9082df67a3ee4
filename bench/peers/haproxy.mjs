// HAProxy 2.6 configurations for the protected-call benchmark: a plain proxy, and the same with `jwt_verify` (ES256)
// and an expiry check on every request. One thread (`nbthread 1`), connections to the upstream reused across
// requests (`http-reuse always`). Run in the foreground: `haproxy -f <cfg> -db`. With `log`, HAProxy's conventional
// per-request log: `option httplog` (one line per request, at the end of it) sent to `log stdout format raw`, which
// the benchmark redirects to a file.

/**
 * The JWT rules of HAProxy's own guide (2.5+): the Bearer token from `Authorization`, its `alg` from the header,
 * the signature checked against the public key (a PEM file named literally, so it is loaded at start), then `exp`
 * against the clock. Anything else is 401. There is no verified-token cache: the signature is checked every time.
 */
const jwtRules = (publicKeyFile) => [
  '  http-request deny deny_status 401 unless { req.hdr(authorization) -m beg -i "bearer " }',
  '  http-request set-var(txn.bearer) http_auth_bearer',
  "  http-request set-var(txn.alg) var(txn.bearer),jwt_header_query('$.alg')",
  '  http-request deny deny_status 401 unless { var(txn.alg) -m str ES256 }',
  `  http-request deny deny_status 401 unless { var(txn.bearer),jwt_verify(txn.alg,"${publicKeyFile}") -m int 1 }`,
  "  http-request set-var(txn.exp) var(txn.bearer),jwt_payload_query('$.exp','int')",
  '  http-request set-var(txn.now) date()',
  '  http-request deny deny_status 401 unless { var(txn.exp),sub(txn.now) -m int gt 0 }',
];

/** `publicKeyFile` given: the jwt_verify peer; otherwise the plain proxy. `log`: one httplog line per request to stdout. */
export function haproxyConfig({ port, upstreamPort, publicKeyFile, log = false }) {
  return [
    'global',
    '  nbthread 1',
    '  maxconn 4096',
    ...(log ? ['  log stdout format raw local0'] : []),
    'defaults',
    '  mode http',
    ...(log ? ['  log global', '  option httplog'] : []),
    '  timeout connect 5s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  timeout http-keep-alive 30s',
    'frontend bench',
    `  bind 127.0.0.1:${port}`,
    ...(publicKeyFile ? jwtRules(publicKeyFile) : []),
    '  default_backend upstream',
    'backend upstream',
    '  http-reuse always',
    `  server nginx 127.0.0.1:${upstreamPort}`,
    '',
  ].join('\n');
}
