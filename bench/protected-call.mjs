// The protected call side by side: the gateway's full pipeline against nginx, HAProxy (with and without jwt_verify),
// fastify (with and without fast-jwt), Node http-proxy and a bare undici forwarder, all in one run on one machine.
// Every server under test is pinned to core 0, wrk and the shared nginx upstream to core 1; all servers stay up and
// only one is driven at a time. Passes are interleaved (pass 1 runs every configuration once, then pass 2...), so a
// ratio compares figures taken minutes apart at most. Loopback only; bounded by BENCH_PASSES x BENCH_RUNS x
// BENCH_DURATION per configuration.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportSPKI, importJWK } from 'jose';
import { hashSecret } from '../dist/index.js';
import { freePort, knob, machine, writeResult } from './lib.mjs';
import { runWrk, startPinned, waitForPort } from './load.mjs';
import { haproxyConfig } from './peers/haproxy.mjs';
import { nginxArgs, proxyConfig, upstreamConfig, UPSTREAM_BODY } from './peers/nginx.mjs';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_DIR = dirname(BENCH_DIR);

const PASSES = knob('BENCH_PASSES', 3);
const RUNS = knob('BENCH_RUNS', 1);
const DURATION_S = knob('BENCH_DURATION', 5);
const WARMUP_S = knob('BENCH_WARMUP', 2);
const CONNECTIONS = knob('BENCH_CONNECTIONS', 50);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;

const PATH = '/business/score/v2/08041998';
const ISSUER = 'https://bench.example.com';
const [SERVER_CORE, CLIENT_CORE] = os.availableParallelism() >= 2 ? ['0', '1'] : ['0', '0'];

/** The goals of the issue: gateway full pipeline (default engine) against three peers, in the same run. */
const GOALS = [
  { peer: 'haproxy-jwt', atLeast: 1.3 },
  { peer: 'fastify-jwt', atLeast: 1.5 },
  { peer: 'undici', atLeast: 0.8 },
];
const GATEWAY = 'gateway-full';
/** A run in which other work took more than this share of the server's core is reported as disturbed. */
const DISTURBED = 0.1;

const progress = (line) => process.stderr.write(`[protected-call] ${line}\n`);
const median = (values) => {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A tool's version from its own report (nginx writes it to stderr). */
function version(command, args, pattern) {
  const { stdout = '', stderr = '' } = spawnSync(command, args, { encoding: 'utf8' });
  return pattern.exec(`${stdout}${stderr}`)?.[1] ?? 'unknown';
}

async function untilReady(server, url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.exited) throw new Error(`${server.name} exited while starting: ${server.stderr || '(no output)'}`);
    const status = await fetch(url).then((response) => (response.arrayBuffer(), response.status)).catch(() => 0);
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${server.name} not ready within ${timeoutMs} ms: ${server.stderr || '(no output)'}`);
    await sleep(50);
  }
}

/** A gateway process (bench/gateway-process.mjs) on its own files: full default pipeline or the Bearer check only. */
async function startGatewayVariant(dir, { id, engine, pipeline, logLevel, upstreamPort, accountsFile }) {
  const port = await freePort();
  const policies = pipeline === 'full' ? '[bench-ip-range, bench-injection-guard, bench-spike-arrest]' : '[]';
  const config = [
    `listen: { host: 127.0.0.1, port: ${port} }`,
    'admin: { port: 0 }',
    `issuer: ${ISSUER}`,
    `accounts: ${accountsFile}`,
    'tokens: { access_ttl: 2h }',
    `log: { level: ${logLevel} }`,
    'routes:',
    `  - { path: /business/, upstream: "http://127.0.0.1:${upstreamPort}" }`,
    'policies:',
    `  folder: ${join(dir, 'policies')}`,
    `  defaults: ${policies}`,
    '',
  ].join('\n');
  const file = join(dir, `${id}.yaml`);
  await writeFile(file, config);
  const server = startPinned(id, SERVER_CORE, process.execPath, [join(BENCH_DIR, 'gateway-process.mjs'), file, engine], { cwd: REPO_DIR });
  const url = `http://127.0.0.1:${port}`;
  await untilReady(server, `${url}/readyz`);
  return { server, url };
}

/** The policies of the "full default pipeline": an IP range, the shipped regex patterns, a spike arrest per client. */
export const POLICIES = `policies:
  - name: bench-ip-range
    kind: ip-range
    rules:
      - allow: [127.0.0.0/8, ::1/128]
    default: deny
  - name: bench-injection-guard
    kind: regex-protection
    builtin: [sql-injection, server-side-include, xpath, javascript, java-exception]
    apply_to:
      path: true
      query: true
      headers: [X-Customer-Reference, Referer]
      json_body: all
  # Never refuses here: 100 requests per 1 ms window, several times what any configuration serves, and a burst
  # allowance of 10 million a second as a margin for a crowded millisecond.
  - name: bench-spike-arrest
    kind: spike-arrest
    rate: 100000ps
    burst: 10000000
    identifier: client_id
`;

async function passwordGrant(url, account) {
  const response = await fetch(`${url}/oauth2/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', ...account }),
  });
  const body = await response.json();
  if (response.status !== 200 || !body.access_token) throw new Error(`password grant on ${url}: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** The gateway's signing key for `token` (by kid, from its JWKS) as an SPKI PEM, for HAProxy, fast-jwt and jose. */
async function publicKeyPem(url, token) {
  const { kid } = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString());
  const { keys } = await (await fetch(`${url}/oauth2/v1/keys`)).json();
  const jwk = keys.find((key) => key.kid === kid);
  if (!jwk) throw new Error(`kid ${kid} not in the JWKS of ${url}`);
  return exportSPKI(await importJWK(jwk, jwk.alg ?? 'ES256'));
}

/** Same token with one signature character changed: a forgery every authenticating configuration must refuse. */
function forged(token) {
  const [header, payload, signature] = token.split('.');
  const at = signature.length >> 1;
  const swapped = signature[at] === 'A' ? 'B' : 'A';
  return `${header}.${payload}.${signature.slice(0, at)}${swapped}${signature.slice(at + 1)}`;
}

/**
 * Before any load: the configuration answers 200 with the upstream's body to its token, and, if it authenticates,
 * 401 without a token and 401 to a forged one. A configuration that failed this is not driven.
 */
async function check(config) {
  const get = async (authorization) => {
    const response = await fetch(`${config.url}${PATH}`, { headers: authorization ? { authorization } : {} });
    return { status: response.status, body: await response.text() };
  };
  const ok = await get(`Bearer ${config.token}`);
  if (ok.status !== 200 || ok.body !== UPSTREAM_BODY) return `answered ${ok.status} (${ok.body.slice(0, 120)}) instead of the upstream's 200`;
  if (!config.authenticates) return undefined;
  const missing = await get(undefined);
  if (missing.status !== 401) return `answered ${missing.status} without a token`;
  const forgery = await get(`Bearer ${forged(config.token)}`);
  if (forgery.status !== 401) return `answered ${forgery.status} to a forged token`;
  return undefined;
}

export async function protectedCall() {
  const startedAt = Date.now();
  execFileSync('sh', [join(BENCH_DIR, 'install-peers.sh')], { stdio: ['ignore', 'inherit', 'inherit'] });
  const versions = {
    nginx: version('nginx', ['-v'], /nginx\/(\S+)/),
    haproxy: version('haproxy', ['-v'], /HA-?Proxy version (\S+)/),
    wrk: version('wrk', ['-v'], /wrk (\S+)/),
  };
  const dir = await mkdtemp(join(os.tmpdir(), 'tg-bench-call-'));
  await chmod(dir, 0o755); // nginx workers run as nobody when started by root; nothing secret is in here
  const servers = [];
  const start = (name, command, args, options) => {
    const server = startPinned(name, options?.core ?? SERVER_CORE, command, args, options);
    servers.push(server);
    return server;
  };
  try {
    // The shared upstream (core 1, beside wrk: off the core under test) and its twin on core 0 for the direct row.
    const upstreamPort = await freePort();
    const directPort = await freePort();
    const startUpstream = async (name, port, core) => {
      const conf = join(dir, `${name}.conf`);
      await writeFile(conf, upstreamConfig(dir, name, port));
      const server = start(name, 'nginx', nginxArgs(dir, conf, name), { core });
      await waitForPort(server, port);
      return server;
    };
    await startUpstream('upstream', upstreamPort, CLIENT_CORE);
    const direct = await startUpstream('nginx-direct', directPort, SERVER_CORE);
    const upstream = `http://127.0.0.1:${upstreamPort}`;

    // Gateways: one account, one policies folder, one process per variant.
    const account = { username: 'bench', password: 'bench-password', client_id: 'bench-app', client_secret: 'bench-secret' };
    const accountsFile = join(dir, 'accounts.yaml');
    await writeFile(
      accountsFile,
      `users:\n  - { username: ${account.username}, password_hash: "${await hashSecret(account.password)}", status: active }\n` +
        `apps:\n  - { client_id: ${account.client_id}, client_secret_hash: "${await hashSecret(account.client_secret)}", status: active }\n`,
    );
    await mkdir(join(dir, 'policies'));
    await writeFile(join(dir, 'policies', 'bench.yaml'), POLICIES);

    const configs = [];
    const add = (config) => {
      if (!ONLY || ONLY.test(config.id) || GOALS.some((goal) => goal.peer === config.id) || config.id === GATEWAY) configs.push(config);
    };
    const gatewayVariants = [
      { id: GATEWAY, label: 'gateway: full pipeline, engine `default`', engine: 'default', pipeline: 'full', logLevel: 'warn' },
      { id: 'gateway-full-http-proxy-3', label: 'gateway: full pipeline, engine `http-proxy-3`', engine: 'http-proxy-3', pipeline: 'full', logLevel: 'warn' },
      { id: 'gateway-full-http-proxy', label: 'gateway: full pipeline, engine `http-proxy`', engine: 'http-proxy', pipeline: 'full', logLevel: 'warn' },
      { id: 'gateway-bearer-only', label: 'gateway: Bearer check only (no policies), engine `default`', engine: 'default', pipeline: 'bearer', logLevel: 'warn' },
      { id: 'gateway-full-log-info', label: 'gateway: full pipeline, engine `default`, log `info` to /dev/null', engine: 'default', pipeline: 'full', logLevel: 'info' },
    ];
    const notRun = [];
    let token;
    let pem;
    for (const variant of gatewayVariants) {
      if (ONLY && !ONLY.test(variant.id) && variant.id !== GATEWAY) continue;
      if (variant.engine !== 'default' && !existsSync(join(BENCH_DIR, 'engines', `${variant.engine}.mjs`))) {
        notRun.push({ ...variant, reason: `bench/engines/${variant.engine}.mjs does not exist yet` });
        continue;
      }
      const { server, url } = await startGatewayVariant(dir, { ...variant, upstreamPort, accountsFile });
      servers.push(server);
      // Each gateway process has its own in-memory key ring, so each gets its own token (same claims, same size).
      const variantToken = await passwordGrant(url, account);
      if (variant.id === GATEWAY) {
        token = variantToken;
        pem = join(dir, 'gateway-public-key.pem');
        await writeFile(pem, await publicKeyPem(url, token));
      }
      add({ ...variant, kind: 'gateway', url, token: variantToken, server, authenticates: true });
    }

    // Peers: the same token as the default gateway, verified with its public key.
    const nginxProxyPort = await freePort();
    await writeFile(join(dir, 'nginx-proxy.conf'), proxyConfig(dir, 'nginx-proxy', nginxProxyPort, upstreamPort));
    const peers = [
      { id: 'nginx-direct', label: `upstream direct (nginx ${versions.nginx}, \`return 200\`)`, port: directPort, server: direct },
      { id: 'nginx-proxy', label: 'nginx proxy_pass, keep-alive 64', port: nginxProxyPort, command: ['nginx', nginxArgs(dir, join(dir, 'nginx-proxy.conf'), 'nginx-proxy')] },
      { id: 'haproxy', label: `HAProxy ${versions.haproxy} proxy, http-reuse always`, haproxy: {} },
      { id: 'haproxy-jwt', label: `HAProxy ${versions.haproxy} + jwt_verify ES256 + exp`, haproxy: { publicKeyFile: pem }, authenticates: true },
      { id: 'node-http-proxy', label: 'Node http + http-proxy 1.18, keep-alive, no auth', script: 'node-http-proxy.mjs' },
      { id: 'fastify', label: 'fastify 5 + @fastify/http-proxy (undici), no auth', script: 'fastify-proxy.mjs' },
      { id: 'fastify-jwt', label: 'fastify 5 + @fastify/http-proxy + fast-jwt ES256 (its cache)', script: 'fastify-proxy.mjs', withKey: true, authenticates: true },
      { id: 'undici', label: 'Node http + undici Pool streaming, no auth', script: 'undici-forwarder.mjs' },
      { id: 'undici-jose', label: 'Node http + undici Pool + jose ES256, verified-token LRU', script: 'undici-forwarder.mjs', withKey: true, authenticates: true },
    ];
    for (const peer of peers) {
      if (ONLY && !ONLY.test(peer.id) && !GOALS.some((goal) => goal.peer === peer.id)) continue;
      let { port, server } = peer;
      if (!server) {
        port ??= await freePort();
        if (peer.command) {
          server = start(peer.id, ...peer.command);
        } else if (peer.haproxy) {
          const cfg = join(dir, `${peer.id}.cfg`);
          await writeFile(cfg, haproxyConfig({ port, upstreamPort, ...peer.haproxy }));
          server = start(peer.id, 'haproxy', ['-f', cfg, '-db']);
        } else {
          const keyArgs = peer.withKey ? [pem, ISSUER] : [];
          server = start(peer.id, process.execPath, [join(BENCH_DIR, 'peers', peer.script), String(port), upstream, ...keyArgs], { cwd: REPO_DIR });
        }
        await waitForPort(server, port);
      }
      add({ ...peer, kind: 'peer', url: `http://127.0.0.1:${port}`, token, server, authenticates: Boolean(peer.authenticates) });
    }

    for (const config of configs) {
      const problem = await check(config);
      if (problem) {
        progress(`${config.id}: ${problem}; not measured`);
        config.problem = problem;
      }
    }
    const measured = configs.filter((config) => !config.problem);
    const drive = (config, durationS) =>
      runWrk({
        url: `${config.url}${PATH}`,
        headers: { Authorization: `Bearer ${config.token}` },
        connections: CONNECTIONS,
        durationS,
        cores: CLIENT_CORE,
        serverPgid: config.server.pid,
        serverCore: SERVER_CORE,
      });

    progress(`${measured.length} configurations; warm-up ${WARMUP_S} s each, then ${PASSES} passes x ${RUNS} run(s) x ${DURATION_S} s`);
    for (const config of measured) await drive(config, WARMUP_S);
    for (let pass = 0; pass < PASSES; pass++) {
      // Each pass starts one configuration further on, so none is always first or last.
      const order = measured.map((_, i) => measured[(i + pass) % measured.length]);
      for (const config of order) {
        for (let run = 0; run < RUNS; run++) {
          if (config.server.exited) throw new Error(`${config.id} exited during the benchmark: ${config.server.stderr}`);
          const result = await drive(config, DURATION_S);
          (config.results ??= []).push({ pass, ...result });
          progress(`pass ${pass + 1}/${PASSES} ${config.id}: ${Math.round(result.rps)} req/s, p99 ${result.p99Ms.toFixed(2)} ms, ${result.cpuUsPerRequest.toFixed(1)} µs CPU/req, core ${SERVER_CORE} ${Math.round(result.serverShare * 100)}% server + ${Math.round(result.othersShare * 100)}% others${result.non2xx ? `, ${result.non2xx} non-2xx` : ''}`);
        }
      }
    }

    const markdown = report({ configs, notRun, versions, elapsedS: (Date.now() - startedAt) / 1000 });
    const file = await writeResult('protected-call', markdown);
    return { file, markdown };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}

/** Medians per configuration, per-pass ratios for the goals. */
function summarize(config) {
  const results = config.results ?? [];
  const perPass = new Map();
  for (const result of results) perPass.set(result.pass, [...(perPass.get(result.pass) ?? []), result]);
  return {
    runs: results.length,
    rps: median(results.map((r) => r.rps)),
    rpsMin: Math.min(...results.map((r) => r.rps)),
    rpsMax: Math.max(...results.map((r) => r.rps)),
    p50Ms: median(results.map((r) => r.p50Ms)),
    p99Ms: median(results.map((r) => r.p99Ms)),
    cpuUs: median(results.map((r) => r.cpuUsPerRequest)),
    serverShare: median(results.map((r) => r.serverShare)),
    othersShare: median(results.map((r) => r.othersShare)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    socketErrors: results.reduce((sum, r) => sum + r.socketErrors, 0),
    passRps: new Map([...perPass].map(([pass, list]) => [pass, median(list.map((r) => r.rps))])),
  };
}

/** Ratio of a's req/s to b's, taken pass by pass (same moment), then the median and range of those. */
function ratio(a, b) {
  const ratios = [...a.passRps].filter(([pass]) => b.passRps.has(pass)).map(([pass, rps]) => rps / b.passRps.get(pass));
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios), count: ratios.length };
}

function report({ configs, notRun, versions, elapsedS }) {
  const facts = machine();
  const byId = new Map(configs.map((config) => [config.id, { config, summary: summarize(config) }]));
  const gateway = byId.get(GATEWAY);
  const clean = (entry) => entry && !entry.config.problem && entry.summary.runs > 0 && entry.summary.non2xx === 0 && entry.summary.socketErrors === 0;
  const f0 = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
  const f1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : '-');
  const f2 = (n) => (Number.isFinite(n) ? n.toFixed(2) : '-');
  const pct = (n) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : '-');
  const disturbed = configs.flatMap((config) =>
    (config.results ?? []).filter((r) => r.othersShare > DISTURBED).map((r) => `${config.id} pass ${r.pass + 1} (${pct(r.othersShare)})`),
  );
  const runCount = configs.reduce((sum, config) => sum + (config.results?.length ?? 0), 0);

  const rows = configs.map(({ id, label, authenticates, problem }) => {
    const { summary } = byId.get(id);
    if (problem) return `| ${label} | ${authenticates ? 'yes' : 'no'} | **not measured: ${problem}** | | | | | | | |`;
    const vsGateway = gateway && gateway.summary.runs > 0 && id !== GATEWAY ? ratio(byId.get(id).summary, gateway.summary).median : NaN;
    const flags = summary.non2xx || summary.socketErrors ? `**${summary.non2xx} / ${summary.socketErrors} (INVALID)**` : '0 / 0';
    const core = `${pct(summary.serverShare)} / ${pct(summary.othersShare)}`;
    return `| ${label} | ${authenticates ? 'yes' : 'no'} | ${f0(summary.rps)} | ${f0(summary.rpsMin)}-${f0(summary.rpsMax)} | ${f2(summary.p50Ms)} | ${f2(summary.p99Ms)} | ${f1(summary.cpuUs)} | ${core} | ${flags} | ${id === GATEWAY ? '1.00' : f2(vsGateway)} |`;
  });
  for (const { label, reason } of notRun) rows.push(`| ${label} | yes | **not run: ${reason}** | | | | | | | |`);

  const goalRows = GOALS.map(({ peer, atLeast }) => {
    const other = byId.get(peer);
    if (!clean(gateway) || !clean(other)) return `| gateway full / ${other?.config.label ?? peer} | - | >= ${atLeast} | not measurable (see the table) |`;
    const r = ratio(gateway.summary, other.summary);
    return `| gateway full / ${other.config.label} | ${f2(r.median)} (${f2(r.min)}-${f2(r.max)}) | >= ${atLeast} | ${r.median >= atLeast ? 'met' : '**not met**'} |`;
  });
  const haproxyJwt = byId.get('haproxy-jwt');
  if (clean(gateway) && clean(haproxyJwt)) {
    const [mine, theirs] = [gateway.summary.p99Ms, haproxyJwt.summary.p99Ms];
    goalRows.push(`| p99, gateway full vs HAProxy jwt_verify | ${f2(mine)} ms vs ${f2(theirs)} ms | no worse | ${mine <= theirs ? 'met' : '**not met**'} |`);
  } else {
    goalRows.push('| p99, gateway full vs HAProxy jwt_verify | - | no worse | not measurable (see the table) |');
  }

  return [
    '# Protected call, side by side',
    '',
    `Machine: ${facts.cpu}, ${facts.memory}, ${facts.os}; Node ${facts.node}; nginx ${versions.nginx}, HAProxy ${versions.haproxy}, wrk ${versions.wrk}. Date: ${facts.date}.`,
    '',
    `Servers under test pinned to core ${SERVER_CORE}; \`wrk -t1 -c${CONNECTIONS} -d${DURATION_S}s --latency\` and the shared nginx upstream`,
    `(one worker, ${UPSTREAM_BODY.length}-byte JSON) pinned to core ${CLIENT_CORE}. Every configuration got a ${WARMUP_S} s warm-up, then ${PASSES} interleaved`,
    `pass(es) of ${RUNS} run(s) each; figures are medians over the runs. Every request is \`GET ${PATH}\` with an ES256`,
    'access token from the gateway\'s password grant: the peers get the default gateway\'s token and check it against its',
    'public key (from its JWKS); each other gateway process has its own key ring, so its own token of the same shape.',
    'Before any load, each configuration answered 200 with the upstream\'s body, and each that authenticates answered 401',
    'without a token and to a forged one. The gateway logs at `warn` (nothing per request) unless the row says otherwise;',
    'its full pipeline is ip-range, regex-protection (the five built-in pattern sets) and spike arrest per client_id',
    '(never refusing here), then the Bearer and revocation checks. CPU µs/req: user + system time of the server\'s process group (all its processes and',
    'threads, from /proc) over the run, divided by the requests wrk completed. "÷ gateway" is this row\'s req/s over the',
    'gateway full pipeline\'s, pass by pass, median over the passes.',
    `"core ${SERVER_CORE}: server / others": the share of the server's core that the server used during its runs, and the share`,
    'everything else used (other processes, interrupts, hypervisor steal): a server that is not near 100% was waiting on',
    'something (the client side, the upstream), and a large "others" means the machine was not quiet.',
    ...(disturbed.length
      ? ['', `**The machine was not quiet**: in ${disturbed.length} of ${runCount} runs, other work took more than ${pct(DISTURBED)} of core ${SERVER_CORE}: ${disturbed.join(', ')}. Those figures are low, and so is any ratio taken in their pass.`]
      : []),
    '',
    `| configuration | auth | req/s | req/s range | p50 ms | p99 ms | CPU µs/req | core ${SERVER_CORE}: server / others | non-2xx / socket errors | ÷ gateway |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    '## Goals (gateway full pipeline, engine `default`)',
    '',
    'Ratios of req/s taken pass by pass in this run: median (range over the passes).',
    '',
    '| goal | figure | target | result |',
    '|---|---:|---:|---|',
    ...goalRows,
    '',
    `Whole benchmark: ${Math.round(elapsedS)} s.`,
    '',
  ].join('\n');
}
