// nginx configurations for the protected-call benchmark: the upstream every proxy forwards to, and the nginx proxy
// peer. One worker process each (the server under test gets one core); logs, pid and temp paths in the run's temp
// directory, so nothing is written under /var. Started as `nginx -p <dir> -c <conf> -e <dir>/error.log -g 'daemon off;'`.
import { join } from 'node:path';

/** The upstream's answer: a small JSON document of about 300 bytes, the same for every path. */
export const UPSTREAM_BODY = JSON.stringify({
  source: 'bench-upstream',
  company: { id: '08041998', name: 'Example Widgets Ltd', status: 'active' },
  directors: [
    { name: 'A. Director', role: 'director', appointed: '2015-06-01' },
    { name: 'B. Secretary', role: 'secretary', appointed: '2018-11-12' },
  ],
  score: { value: 71, band: 'B', reviewed: '2026-10-30' },
});

function common(dir, name) {
  return [
    'worker_processes 1;',
    `pid ${join(dir, `${name}.pid`)};`,
    `error_log ${join(dir, `${name}-error.log`)} warn;`,
    'events { worker_connections 4096; }',
    'http {',
    '  access_log off;',
    // Keep-alive connections are never closed after N requests (nginx's default is 1000): no peer is made to reconnect.
    '  keepalive_requests 1000000;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(dir, `${name}-${kind}-temp`)};`),
  ];
}

/** The upstream: `return 200` with the JSON body, no access log. */
export function upstreamConfig(dir, name, port) {
  if (UPSTREAM_BODY.includes("'") || UPSTREAM_BODY.includes('$')) throw new Error('the body must not need nginx quoting');
  return [
    ...common(dir, name),
    '  server {',
    `    listen 127.0.0.1:${port};`,
    '    location / {',
    '      default_type application/json;',
    `      return 200 '${UPSTREAM_BODY}';`,
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

/**
 * The nginx proxy peer: proxy_pass to the upstream over a keep-alive pool of 64 idle connections. With `accessLog` (a
 * file), nginx's conventional access log: `access_log <file>;` in the default `combined` format, unbuffered (one
 * write per request).
 */
export function proxyConfig(dir, name, port, upstreamPort, { accessLog } = {}) {
  return [
    ...common(dir, name),
    '  upstream bench_upstream {',
    `    server 127.0.0.1:${upstreamPort};`,
    '    keepalive 64;',
    '    keepalive_requests 1000000;',
    '  }',
    '  server {',
    `    listen 127.0.0.1:${port};`,
    ...(accessLog ? [`    access_log ${accessLog};`] : []),
    '    location / {',
    '      proxy_pass http://bench_upstream;',
    '      proxy_http_version 1.1;',
    '      proxy_set_header Connection "";',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

export const nginxArgs = (dir, conf, name) => ['-p', dir, '-c', conf, '-e', join(dir, `${name}-error.log`), '-g', 'daemon off;'];
