// The protected call side by side: the gateway as shipped (full pipeline, an access line per request at `info`)
// against nginx, HAProxy (with and without jwt_verify), fastify (with and without fast-jwt), Node http-proxy and a bare
// undici forwarder, all in one run on one machine; the peers that log run beside their quiet rows, each logging its
// conventional way. Every server under test is pinned to core 0, wrk, the shared nginx upstream and the gateway's log
// pipe consumer to core 1; all servers stay up and only one is driven at a time. Passes are interleaved (pass 1 runs
// every configuration once, then pass 2...), so a ratio compares figures taken minutes apart at most. Loopback only;
// bounded by BENCH_WARMUP + BENCH_PASSES x BENCH_RUNS x BENCH_DURATION per configuration.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, createReadStream, existsSync, constants as fsConstants, openSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportSPKI, importJWK } from 'jose';
import { BENCH_ACCOUNT, freePort, GATEWAY_NODE_FLAGS, knob, machine, machineLine, percentile, writeBenchAccounts, writeResult, isMainScript, runBenchmark } from './lib.mjs';
import { CLOCK_TICKS_PER_SECOND, groupCpuTicks, runWrk, startPinned, THAW_SETTLE_MS, waitForPort } from './load.mjs';
import { haproxyConfig } from './peers/haproxy.mjs';
import { nginxArgs, proxyConfig, upstreamConfig, UPSTREAM_BODY } from './peers/nginx.mjs';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_DIR = dirname(BENCH_DIR);

const PASSES = knob('BENCH_PASSES', 3);
const RUNS = knob('BENCH_RUNS', 1);
const DURATION_S = knob('BENCH_DURATION', 5);
// The gateway's JIT takes about 5 s of load to settle: a shorter warm-up leaves its first pass low.
const WARMUP_S = knob('BENCH_WARMUP', 5);
const CONNECTIONS = knob('BENCH_CONNECTIONS', 50);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
/**
 * Processes per row for the rows the goals are read from (SEVERAL): two identical gateway processes can differ by
 * about 1.2x in CPU per call for their whole life on these VMs (docs/performance.md, "Identical processes, different
 * speeds"), which one process per row would put into every ratio. Each process is driven like a row of its own, in
 * the rotation; a row's figure in a pass is the median of its processes' runs in that pass.
 */
const GATEWAY_PROCESSES = knob('BENCH_GATEWAY_PROCESSES', 3, { whole: true });

const PATH = '/business/score/v2/08041998';
export const ISSUER = 'https://bench.example.com';
const [SERVER_CORE, CLIENT_CORE] = os.availableParallelism() >= 2 ? ['0', '1'] : ['0', '0'];

/** The headline: the gateway as shipped (full pipeline, default engine, `log.level: info`, stdout to a file). */
const GATEWAY = 'gateway-full';
/** The same at `warn` (nothing per request): the goals against the quiet peers, for reference only. */
const QUIET = 'gateway-full-quiet';
/** The Node floor: a bare undici forwarder, no auth, no log. */
const FLOOR = 'undici';
/**
 * The goals of the issue, against the logging peers; the same against the quiet peers are computed for reference.
 * req/s ratios: gateway over peer at least `atLeast`; the HAProxy one applies only where the bare forwarder itself
 * reaches `floorAtLeast` x that peer. CPU: gateway µs per request at most `atMost` x the floor's.
 */
const GOALS = {
  haproxy: { atLeast: 1.3, floorAtLeast: 1.5 },
  fastify: { atLeast: 1.5 },
  cpu: { atMost: 1.15 },
};
/** The access line may cost at most 10% of throughput: the logging gateway at least 0.9x the quiet one. */
const ACCESS_LINE_AT_LEAST = 0.9;
const HEADLINE = { gateway: GATEWAY, haproxy: 'haproxy-jwt-log', fastify: 'fastify-jwt-log', floor: FLOOR };
const REFERENCE = { gateway: QUIET, haproxy: 'haproxy-jwt', fastify: 'fastify-jwt', floor: FLOOR };
/** Rows that always run, whatever BENCH_ONLY says: the headline goals need them. */
const ALWAYS = new Set(Object.values(HEADLINE));
/**
 * The headline with node's own default of four V8 helper threads instead of the two it ships with (a later value of
 * a flag wins): what the shipped pool size does, in the same run (src/cli/node-flags.ts).
 */
const FOUR_HELPERS = 'gateway-full-four-helpers';
const FOUR_HELPERS_FLAGS = ['--v8-pool-size=4'];
/**
 * The rows that run GATEWAY_PROCESSES processes: the headline, its pipe twin and the quiet row they are held
 * against, the headline on node's default helper threads that the shipped pool size is held against, and the two Node
 * rows of the headline goals, the floor and fastify + fast-jwt logging. A Node process draws its speed for its whole
 * life as a gateway's does (a floor process of the eleventh VM's run used 67 to 130 µs per call), and a goal's
 * verdict must not rest on one draw on either side of its ratio. HAProxy, in C, runs one.
 */
const SEVERAL = new Set([GATEWAY, 'gateway-full-log-pipe', QUIET, FOUR_HELPERS, FLOOR, 'fastify-jwt-log']);
/** A run in which other work took more than this share of the server's core is reported as disturbed. */
const DISTURBED = 0.1;
/**
 * Then, before each measured run, this much unmeasured load. Interleaving leaves every server idle (frozen) for a
 * minute or more between its runs, which a server under steady load never is; a Node server's first second or two of
 * load after that is its re-warm-up (bench/README.md, "After an idle minute"), which would otherwise land in every run.
 */
const REWARM_S = knob('BENCH_REWARM', 2, { zero: true }); // 0 turns it off (the smoke run in bench/README.md)
/** After a logging row's run, time for its last lines to reach the file or pipe (the gateway flushes every 100 ms). */
export const LOG_SETTLE_MS = 300;
// Longer than gateway-process.mjs's 100 ms between rewrites of its gc file.
const GC_SETTLE_MS = 150;
/** A logging row whose run wrote fewer lines than this share of (lines per request x requests) fails its log check. */
export const LOG_LINES_AT_LEAST = 0.98;

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

/**
 * The gateway.yaml of the benchmarks' gateway: one route to the upstream, the POLICIES folder, and the full default
 * pipeline (ip-range, regex-protection, spike arrest) or none. Also used by stage-budget.mjs and ab.mjs.
 */
export function benchGatewayYaml({ port, accountsFile, logLevel, upstreamPort, policiesFolder, fullPipeline = true }) {
  return [
    `listen: { host: 127.0.0.1, port: ${port} }`,
    'admin: { port: 0 }',
    `issuer: ${ISSUER}`,
    `accounts: ${accountsFile}`,
    'tokens: { access_ttl: 2h }',
    `log: { level: ${logLevel} }`,
    'routes:',
    `  - { path: /business/, upstream: "http://127.0.0.1:${upstreamPort}" }`,
    'policies:',
    `  folder: ${policiesFolder}`,
    `  defaults: ${fullPipeline ? '[bench-ip-range, bench-injection-guard, bench-spike-arrest]' : '[]'}`,
    '',
  ].join('\n');
}

/**
 * A gateway process (bench/gateway-process.mjs) on its own files: full default pipeline or the Bearer check only.
 * `stdout`: a file descriptor for its standard output (its log), else /dev/null.
 */
async function startGatewayVariant(dir, { id, engine, pipeline, logLevel, upstreamPort, accountsFile, stdout, nodeFlags = [] }) {
  const port = await freePort();
  const gcFile = join(dir, `${id}.gc.json`);
  const config = benchGatewayYaml({ port, accountsFile, logLevel, upstreamPort, policiesFolder: join(dir, 'policies'), fullPipeline: pipeline === 'full' });
  const file = join(dir, `${id}.yaml`);
  await writeFile(file, config);
  const server = startPinned(id, SERVER_CORE, process.execPath, [...GATEWAY_NODE_FLAGS, ...nodeFlags, join(BENCH_DIR, 'gateway-process.mjs'), file, engine, gcFile], { cwd: REPO_DIR, stdout });
  const url = `http://127.0.0.1:${port}`;
  await untilReady(server, `${url}/readyz`);
  return { server, url, gcFile };
}

/**
 * A gateway process's garbage collections so far (bench/gateway-process.mjs keeps them in its gc file, rewritten
 * every 100 ms while they change). Read before and after a run, the difference is the run's own to within those
 * 100 ms at either edge: about 2% of a 5 s run.
 */
async function gcTotals(gcFile) {
  return JSON.parse(await readFile(gcFile, 'utf8'));
}

/** Per request, over a run: scavenge and mark-compact time in µs, scavenges and their mean pause. */
function gcOfRun(before, after, requests) {
  const scavenges = after.scavenges - before.scavenges;
  const scavengeMs = after.scavengeMs - before.scavengeMs;
  return {
    scavengeUsPerRequest: requests > 0 ? (scavengeMs * 1000) / requests : NaN,
    majorUsPerRequest: requests > 0 ? ((after.majorMs - before.majorMs) * 1000) / requests : NaN,
    scavenges,
    scavengeMeanMs: scavenges > 0 ? scavengeMs / scavenges : NaN,
  };
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

/** An access token from the gateway at `url` by the password grant; any other answer stops the run. */
export async function passwordGrant(url, account) {
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
export async function publicKeyPem(url, token) {
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

/**
 * Newline characters in a file from byte `start` on; with `latencyOf`, also each line's latency as the server logged
 * it (ms), where the function finds one.
 */
export async function countLines(file, start = 0, latencyOf = undefined) {
  let lines = 0;
  const latencies = [];
  let partial = '';
  for await (const chunk of createReadStream(file, { start })) {
    if (!latencyOf) {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      continue;
    }
    // Split into lines anyway to read each one's latency: those are the newlines to count.
    const parts = (partial + chunk.toString('latin1')).split('\n');
    partial = parts.pop();
    lines += parts.length;
    for (const line of parts) {
      const ms = latencyOf(line);
      if (ms !== undefined) latencies.push(ms);
    }
  }
  return { lines, latencies };
}

/**
 * The latency a server logs for each request, from its own log line: the gateway's `latencyMs` (from the request's
 * head parsed to the response handed to the kernel, µs resolution) and HAProxy's `Ta` of `option httplog` (from the
 * request's first byte to the response's last, whole ms). Against wrk's figures for the same run, they tell the
 * time spent inside the server from the time spent before it reads a request and after it sends the answer.
 */
export const LOGGED_LATENCY = {
  gateway: (line) => {
    const match = /"latencyMs":([\d.]+)/.exec(line);
    return match ? Number(match[1]) : undefined;
  },
  haproxy: (line) => {
    // ... frontend backend/server TR/Tw/Tc/Tr/Ta status ...
    const match = /\] \S+ \S+ -?\d+\/-?\d+\/-?\d+\/-?\d+\/\+?(\d+) \d{3} /.exec(line);
    return match ? Number(match[1]) : undefined;
  },
};

/** p50, p99 and p99.9 of a list of latencies (ms), or undefined for an empty one. */
function latencyPercentiles(values) {
  if (values.length === 0) return undefined;
  const sorted = Float64Array.from(values).sort();
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), p999Ms: percentile(sorted, 99.9) };
}

/** Bytes a process has read with read() and the like since it started (`rchar` of /proc/<pid>/io). */
function bytesRead(pid) {
  const match = /^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  if (!match) throw new Error(`no rchar in /proc/${pid}/io`);
  return Number(match[1]);
}

/**
 * Where a logging row's lines go, and how a run's lines are counted.
 * - `file`: a file in the temp dir (the server's stdout, opened here in append mode, or nginx's access_log). Its size
 *   is noted before each run; after the run and LOG_SETTLE_MS, the newlines past that offset are the run's lines and
 *   the growth their bytes. The file is never truncated: HAProxy replaces its stdout's flags with O_NONBLOCK at its
 *   first log line, dropping O_APPEND, so it would go on writing at its old offset and leave a hole.
 * - `pipe`: a FIFO whose reader is `cat <fifo>` (output to /dev/null) pinned to CLIENT_CORE, the gateway's stdout its
 *   writing end. The bytes the consumer read during the run (`rchar` of /proc/<pid>/io) are counted, and its CPU time;
 *   lines are estimated as bytes / (bytes per line of the same gateway's file row in the same pass).
 */
const logSinks = {
  /** A file sink; `fd` (opened here, append mode) for a server's stdout, or just the path for nginx to open. */
  file(path, { linesPerRequest = 1, openFd = true, latencyOf = undefined } = {}) {
    const fd = openFd ? openSync(path, 'a') : undefined;
    let offset = 0;
    return {
      kind: 'file',
      path,
      fd,
      linesPerRequest,
      /** The parent's copy of the descriptor, once the server holds its own. */
      release() {
        if (this.fd !== undefined) closeSync(this.fd);
        this.fd = undefined;
      },
      before() {
        offset = statSync(path).size;
      },
      async after() {
        const { lines, latencies } = await countLines(path, offset, latencyOf);
        return { lines, bytes: statSync(path).size - offset, logged: latencyPercentiles(latencies) };
      },
    };
  },
  /** A FIFO read by `cat` on the client core; `start` is the benchmark's process starter. */
  async pipe(path, name, start) {
    execFileSync('mkfifo', [path]);
    const consumer = start(name, 'cat', [path], { core: CLIENT_CORE });
    // Read-write, so opening never waits for the reader (a FIFO opened write-only blocks until one comes) and the
    // descriptor stays blocking, as a pipe from a container runtime or systemd is. cat's open returns at once.
    const fd = openSync(path, fsConstants.O_RDWR);
    let bytesBefore = 0;
    let ticksBefore = 0;
    return {
      kind: 'pipe',
      path,
      fd,
      consumer,
      linesPerRequest: 1,
      release() {
        if (this.fd !== undefined) closeSync(this.fd);
        this.fd = undefined;
      },
      before() {
        if (consumer.exited) throw new Error(`the log consumer ${name} exited: ${consumer.stderr || '(no output)'}`);
        bytesBefore = bytesRead(consumer.pid);
        ticksBefore = groupCpuTicks(consumer.pid);
      },
      async after() {
        return { bytes: bytesRead(consumer.pid) - bytesBefore, consumerCpuS: (groupCpuTicks(consumer.pid) - ticksBefore) / CLOCK_TICKS_PER_SECOND };
      },
    };
  },
};

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
  const consumers = []; // stopped after the servers, so no server is left writing into a pipe nobody reads
  const start = (name, command, args, options) => {
    const server = startPinned(name, options?.core ?? SERVER_CORE, command, args, options);
    servers.push(server);
    return server;
  };
  const startConsumer = (name, command, args, options) => {
    const consumer = startPinned(name, options?.core ?? CLIENT_CORE, command, args, options);
    consumers.push(consumer);
    return consumer;
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

    // Gateways: one account, one policies folder, one process per variant (GATEWAY_PROCESSES for the rows in SEVERAL).
    const account = BENCH_ACCOUNT;
    const accountsFile = await writeBenchAccounts(join(dir, 'accounts.yaml'));
    await mkdir(join(dir, 'policies'));
    await writeFile(join(dir, 'policies', 'bench.yaml'), POLICIES);

    const configs = [];
    const wanted = (id) => !ONLY || ONLY.test(id) || ALWAYS.has(id);
    const add = (config) => {
      if (wanted(rowOf(config))) configs.push(config);
    };
    const gatewayVariants = [
      { id: GATEWAY, label: 'gateway as shipped: full pipeline, engine `default`, log `info`, stdout to a file', engine: 'default', pipeline: 'full', logLevel: 'info', log: 'file' },
      { id: 'gateway-full-log-pipe', label: `gateway: full pipeline, engine \`default\`, log \`info\`, stdout to a pipe (\`cat\` on core ${CLIENT_CORE})`, engine: 'default', pipeline: 'full', logLevel: 'info', log: 'pipe' },
      { id: QUIET, label: 'gateway: full pipeline, engine `default`, log `warn` (quiet)', engine: 'default', pipeline: 'full', logLevel: 'warn' },
      { id: FOUR_HELPERS, label: `gateway as shipped, but node's default of four V8 helper threads (\`${FOUR_HELPERS_FLAGS.join(' ')}\`)`, engine: 'default', pipeline: 'full', logLevel: 'info', log: 'file', nodeFlags: FOUR_HELPERS_FLAGS },
      { id: 'gateway-full-http-proxy-3', label: 'gateway: full pipeline, engine `http-proxy-3`, log `warn` (quiet)', engine: 'http-proxy-3', pipeline: 'full', logLevel: 'warn' },
      { id: 'gateway-full-http-proxy', label: 'gateway: full pipeline, engine `http-proxy`, log `warn` (quiet)', engine: 'http-proxy', pipeline: 'full', logLevel: 'warn' },
      { id: 'gateway-bearer-only', label: 'gateway: Bearer check only (no policies), engine `default`, log `warn` (quiet)', engine: 'default', pipeline: 'bearer', logLevel: 'warn' },
    ];
    const notRun = [];
    let token;
    let pem;
    for (const variant of gatewayVariants) {
      if (!wanted(variant.id)) continue;
      if (variant.engine !== 'default' && !existsSync(join(BENCH_DIR, 'engines', `${variant.engine}.mjs`))) {
        notRun.push({ ...variant, reason: `bench/engines/${variant.engine}.mjs does not exist yet` });
        continue;
      }
      const processes = SEVERAL.has(variant.id) ? GATEWAY_PROCESSES : 1;
      for (let nth = 1; nth <= processes; nth++) {
        // Each process is a configuration of its own until the report puts its row back together (rowsOf).
        const id = processes > 1 ? `${variant.id}#${nth}` : variant.id;
        const log =
          variant.log === 'file'
            ? logSinks.file(join(dir, `${id}.log`), { latencyOf: LOGGED_LATENCY.gateway })
            : variant.log === 'pipe'
              ? await logSinks.pipe(join(dir, `${id}.fifo`), `${id}-consumer`, startConsumer)
              : undefined;
        const { server, url, gcFile } = await startGatewayVariant(dir, { ...variant, id, upstreamPort, accountsFile, stdout: log?.fd }).finally(() => log?.release());
        servers.push(server);
        // Each gateway process has its own in-memory key ring, so each gets its own token (same claims, same size).
        const variantToken = await passwordGrant(url, account);
        if (variant.id === GATEWAY && nth === 1) {
          token = variantToken;
          pem = join(dir, 'gateway-public-key.pem');
          await writeFile(pem, await publicKeyPem(url, token));
        }
        add({ ...variant, id, row: variant.id, process: nth, processes, kind: 'gateway', url, token: variantToken, server, gcFile, authenticates: true, log });
      }
    }

    // Peers: the same token as the default gateway, verified with its public key.
    const nginxProxy = async (id, accessLog) => {
      const port = await freePort();
      const conf = join(dir, `${id}.conf`);
      await writeFile(conf, proxyConfig(dir, id, port, upstreamPort, { accessLog }));
      return { port, command: ['nginx', nginxArgs(dir, conf, id)] };
    };
    const peers = [
      { id: 'nginx-direct', label: `upstream direct (nginx ${versions.nginx}, \`return 200\`)`, port: directPort, server: direct },
      { id: 'nginx-proxy', label: 'nginx proxy_pass, keep-alive 64, no log', nginx: {} },
      { id: 'nginx-proxy-log', label: 'nginx proxy_pass, keep-alive 64, `access_log` (combined) to a file', nginx: { log: true } },
      { id: 'haproxy', label: `HAProxy ${versions.haproxy} proxy, http-reuse always, no log`, haproxy: {} },
      { id: 'haproxy-jwt', label: `HAProxy ${versions.haproxy} + jwt_verify ES256 + exp, no log`, haproxy: { publicKeyFile: pem }, authenticates: true },
      { id: 'haproxy-jwt-log', label: `HAProxy ${versions.haproxy} + jwt_verify ES256 + exp, \`option httplog\` to stdout, to a file`, haproxy: { publicKeyFile: pem, log: true }, authenticates: true },
      { id: 'node-http-proxy', label: 'Node http + http-proxy 1.18, keep-alive, no auth, no log', script: 'node-http-proxy.mjs' },
      { id: 'fastify', label: 'fastify 5 + @fastify/http-proxy (undici), no auth, no log', script: 'fastify-proxy.mjs' },
      { id: 'fastify-jwt', label: 'fastify 5 + @fastify/http-proxy + fast-jwt ES256 (its cache), no log', script: 'fastify-proxy.mjs', withKey: true, authenticates: true },
      { id: 'fastify-jwt-log', label: 'fastify 5 + @fastify/http-proxy + fast-jwt ES256, `logger: true` (pino) to stdout, to a file', script: 'fastify-proxy.mjs', withKey: true, authenticates: true, fastifyLog: true },
      { id: FLOOR, label: 'Node http + undici Pool streaming, no auth, no log', script: 'undici-forwarder.mjs' },
      { id: 'undici-jose', label: 'Node http + undici Pool + jose ES256, verified-token LRU, no log', script: 'undici-forwarder.mjs', withKey: true, authenticates: true },
    ];
    for (const peer of peers) {
      if (!wanted(peer.id)) continue;
      // Only a Node peer runs several (SEVERAL); each process gets its own port and log file, and the same token.
      const processes = SEVERAL.has(peer.id) && peer.script ? GATEWAY_PROCESSES : 1;
      for (let nth = 1; nth <= processes; nth++) await startPeer(peer, nth, processes);
    }

    async function startPeer(peer, nth, processes) {
      const id = processes > 1 ? `${peer.id}#${nth}` : peer.id;
      let { port, server } = peer;
      let log;
      if (!server) {
        port ??= await freePort();
        if (peer.nginx) {
          // nginx opens its access log itself (append mode, one write per request).
          if (peer.nginx.log) log = logSinks.file(join(dir, `${peer.id}-access.log`), { openFd: false });
          const proxy = await nginxProxy(peer.id, log?.path);
          port = proxy.port;
          server = start(peer.id, ...proxy.command);
        } else if (peer.haproxy) {
          const cfg = join(dir, `${peer.id}.cfg`);
          await writeFile(cfg, haproxyConfig({ port, upstreamPort, ...peer.haproxy }));
          if (peer.haproxy.log) log = logSinks.file(join(dir, `${peer.id}.log`), { latencyOf: LOGGED_LATENCY.haproxy });
          server = start(peer.id, 'haproxy', ['-f', cfg, '-db'], { stdout: log?.fd });
        } else {
          const keyArgs = peer.withKey ? [pem, ISSUER] : [];
          // fastify's logger writes four lines per proxied request: fastify's "incoming request" and "request
          // completed", and @fastify/reply-from's "fetching from remote server" and "response received".
          if (peer.fastifyLog) log = logSinks.file(join(dir, `${id}.log`), { linesPerRequest: 4 });
          const logArgs = peer.fastifyLog ? ['--log'] : [];
          server = start(id, process.execPath, [join(BENCH_DIR, 'peers', peer.script), String(port), upstream, ...keyArgs, ...logArgs], { cwd: REPO_DIR, stdout: log?.fd });
        }
        log?.release();
        await waitForPort(server, port);
      }
      add({ ...peer, id, row: peer.id, process: nth, processes, kind: 'peer', url: `http://127.0.0.1:${port}`, token, server, authenticates: Boolean(peer.authenticates), log });
    }

    for (const config of configs) {
      const problem = await check(config);
      if (problem) {
        progress(`${config.id}: ${problem}; not measured`);
        config.problem = problem;
      }
    }
    // A row is driven whole or not at all: one of its processes failing its check leaves the row out (rowsOf reports
    // it), so that its other processes' runs are not taken for the row's figures.
    const failedRows = new Set(configs.filter((config) => config.problem).map(rowOf));
    const measured = configs.filter((config) => !failedRows.has(rowOf(config)));
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

    // A logging row's run: its log emptied (file) or its consumer's counters read (pipe) before, its lines counted after.
    const driveLogged = async (config, durationS) => {
      if (!config.log) return drive(config, durationS);
      config.log.before();
      const result = await drive(config, durationS);
      await sleep(LOG_SETTLE_MS);
      return { ...result, log: await config.log.after() };
    };

    // A gateway's run also carries its garbage collection (gcOfRun): what tells a process slowed by its collector
    // (a promoting state: docs/performance.md, "The slow process") from one slowed by the VM.
    const driveMeasured = async (config, durationS) => {
      if (!config.gcFile) return driveLogged(config, durationS);
      const before = await gcTotals(config.gcFile);
      const result = await driveLogged(config, durationS);
      // The logging rows have waited LOG_SETTLE_MS already; the others wait for the file's next rewrite.
      if (!config.log) await sleep(GC_SETTLE_MS);
      return { ...result, gc: gcOfRun(before, await gcTotals(config.gcFile), result.requests) };
    };

    // Only the server being driven runs on the core under test: the others are frozen (SIGSTOP) meanwhile, so that
    // an idle Node process's collection after its own load, or any server's timers, cannot land in another's run.
    // A thawed server gets THAW_SETTLE_MS to run what came due while it was frozen before wrk starts.
    for (const config of measured) config.server.freeze();
    progress(`${measured.length} configurations; warm-up ${WARMUP_S} s each, then ${PASSES} passes x ${RUNS} run(s) x ${DURATION_S} s`);
    for (const config of measured) await config.server.alone(() => drive(config, WARMUP_S));
    for (let pass = 0; pass < PASSES; pass++) {
      // Each pass starts one configuration further on, so none is always first or last.
      const order = measured.map((_, i) => measured[(i + pass) % measured.length]);
      for (const config of order) await config.server.alone(async () => {
        if (REWARM_S > 0) {
          await drive(config, REWARM_S);
          // The re-warm's last lines are still in the gateway's batch: written before the measured run's count starts.
          if (config.log) await sleep(LOG_SETTLE_MS);
        }
        for (let run = 0; run < RUNS; run++) {
          if (config.server.exited) throw new Error(`${config.id} exited during the benchmark: ${config.server.stderr}`);
          const result = await driveMeasured(config, DURATION_S);
          (config.results ??= []).push({ pass, ...result });
          const gc = result.gc ? `, GC ${result.gc.scavengeUsPerRequest.toFixed(1)} + ${result.gc.majorUsPerRequest.toFixed(1)} µs/req (${result.gc.scavenges} scavenges, mean ${result.gc.scavengeMeanMs.toFixed(2)} ms)` : '';
          const logged = !result.log ? '' : result.log.lines === undefined ? `, ${result.log.bytes} bytes through the log pipe` : `, log ${result.log.lines} lines / ${result.log.bytes} bytes`;
          progress(`pass ${pass + 1}/${PASSES} ${config.id}: ${Math.round(result.rps)} req/s, p99 ${result.p99Ms.toFixed(2)} ms, p99.9 ${result.p999Ms.toFixed(2)} ms, ${result.cpuUsPerRequest.toFixed(1)} µs CPU/req, core ${SERVER_CORE} ${Math.round(result.serverShare * 100)}% server + ${Math.round(result.othersShare * 100)}% others${gc}${result.non2xx ? `, ${result.non2xx} non-2xx` : ''}${logged}`);
        }
      });
    }

    const markdown = report({ configs: rowsOf(configs), notRun, versions, elapsedS: (Date.now() - startedAt) / 1000 });
    const file = await writeResult('protected-call', markdown);
    return { file, markdown };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}

/** The report row a configuration belongs to: its own id, or, for one process of a row in SEVERAL, that row's. */
const rowOf = (config) => config.row ?? config.id;

/**
 * The rows of the report: the processes of a row (SEVERAL) put back together, their runs side by side (each tagged
 * with its process), so that a row's figure in a pass is the median of its processes' runs in that pass (summarize).
 * A process that failed its check before the load makes its row fail: the row's other processes are then not
 * comparable with the other rows' figures either.
 */
function rowsOf(configs) {
  const rows = new Map();
  for (const config of configs) {
    const id = rowOf(config);
    const row = rows.get(id);
    const results = (config.results ?? []).map((result) => ({ ...result, process: config.process ?? 1 }));
    const problem = config.problem === undefined ? undefined : config.processes > 1 ? `process ${config.process}: ${config.problem}` : config.problem;
    if (!row) rows.set(id, { ...config, id, results, problem });
    else {
      row.results.push(...results);
      row.problem ??= problem;
    }
  }
  return [...rows.values()];
}

/**
 * The log check of each logging row, run by run: a file row must have written at least LOG_LINES_AT_LEAST x its
 * lines per request x the requests wrk completed, and at most its lines per request x (requests + 2 x connections):
 * when wrk stops, each connection may have a request in flight, which is logged too, and HAProxy logs a `<BADREQ>`
 * line (termination CR--) for a connection closed in the middle of its next request. A pipe row's lines are its bytes over the bytes per line of the gateway's file row in the same
 * pass, held to the same bound. Sets `run.log.linesPerRequest`, `run.log.bytesPerLine` and `config.logProblem`.
 */
function checkLogs(configs) {
  const fileRow = configs.find((config) => config.id === GATEWAY);
  // Per pass, over the file row's processes: their bytes over their lines.
  const fileTotals = new Map();
  for (const r of (fileRow?.results ?? []).filter((r) => r.log?.lines > 0)) {
    const total = fileTotals.get(r.pass) ?? { bytes: 0, lines: 0 };
    fileTotals.set(r.pass, { bytes: total.bytes + r.log.bytes, lines: total.lines + r.log.lines });
  }
  const fileBytesPerLine = new Map([...fileTotals].map(([pass, { bytes, lines }]) => [pass, bytes / lines]));
  for (const config of configs) {
    if (!config.log) continue;
    const problems = [];
    for (const run of config.results ?? []) {
      const { log } = run;
      if (config.log.kind === 'pipe') {
        const perLine = fileBytesPerLine.get(run.pass);
        log.estimated = true;
        log.lines = perLine ? log.bytes / perLine : NaN;
        log.consumerUsPerRequest = run.requests > 0 ? (log.consumerCpuS * 1e6) / run.requests : NaN;
      }
      log.linesPerRequest = run.requests > 0 ? log.lines / run.requests : NaN;
      log.bytesPerLine = log.lines > 0 ? log.bytes / log.lines : NaN;
      const expected = config.log.linesPerRequest;
      const low = LOG_LINES_AT_LEAST * expected * run.requests;
      const high = expected * (run.requests + 2 * CONNECTIONS) * (config.log.kind === 'pipe' ? 1.02 : 1);
      if (!(log.lines >= low && log.lines <= high)) {
        problems.push(`pass ${run.pass + 1}${config.processes > 1 ? ` process ${run.process}` : ''}: ${Number.isFinite(log.lines) ? Math.round(log.lines) : '?'} lines${log.estimated ? ' (estimated)' : ''} for ${run.requests} requests, ${expected} expected per request`);
      }
    }
    if (problems.length) config.logProblem = problems.join('; ');
  }
}

/** Medians per configuration, per-pass figures for the goals' ratios. */
function summarize(config) {
  const results = config.results ?? [];
  const perPass = new Map();
  for (const result of results) perPass.set(result.pass, [...(perPass.get(result.pass) ?? []), result]);
  const byPass = (pick) => new Map([...perPass].map(([pass, list]) => [pass, median(list.map(pick))]));
  const logs = results.filter((r) => r.log);
  return {
    runs: results.length,
    rps: median(results.map((r) => r.rps)),
    rpsMin: Math.min(...results.map((r) => r.rps)),
    rpsMax: Math.max(...results.map((r) => r.rps)),
    p50Ms: median(results.map((r) => r.p50Ms)),
    p99Ms: median(results.map((r) => r.p99Ms)),
    p999Ms: median(results.map((r) => r.p999Ms)),
    cpuUs: median(results.map((r) => r.cpuUsPerRequest)),
    serverShare: median(results.map((r) => r.serverShare)),
    othersShare: median(results.map((r) => r.othersShare)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    socketErrors: results.reduce((sum, r) => sum + r.socketErrors, 0),
    passRps: byPass((r) => r.rps),
    passCpu: byPass((r) => r.cpuUsPerRequest),
    log: logs.length
      ? {
          lines: logs.reduce((sum, r) => sum + r.log.lines, 0),
          linesPerRequest: median(logs.map((r) => r.log.linesPerRequest)),
          bytesPerLine: median(logs.map((r) => r.log.bytesPerLine)),
          bytesPerRequest: median(logs.map((r) => (r.requests > 0 ? r.log.bytes / r.requests : NaN))),
          consumerUs: median(logs.map((r) => r.log.consumerUsPerRequest)),
        }
      : undefined,
    logged: logs.some((r) => r.log.logged)
      ? Object.fromEntries(['p50Ms', 'p99Ms', 'p999Ms'].map((key) => [key, median(logs.map((r) => r.log.logged?.[key]))]))
      : undefined,
  };
}

/** Ratio of a's figure to b's (`key`: passRps or passCpu), taken pass by pass (same moment), then their median and range. */
function ratio(a, b, key = 'passRps') {
  const ratios = [...a[key]].filter(([pass]) => b[key].has(pass)).map(([pass, value]) => value / b[key].get(pass));
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios), count: ratios.length };
}

function report({ configs, notRun, versions, elapsedS }) {
  checkLogs(configs);
  const facts = machine();
  const byId = new Map(configs.map((config) => [config.id, { config, summary: summarize(config) }]));
  const gateway = byId.get(GATEWAY);
  const clean = (entry) =>
    entry && !entry.config.problem && !entry.config.logProblem && entry.summary.runs > 0 && entry.summary.non2xx === 0 && entry.summary.socketErrors === 0;
  const f0 = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
  const f1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : '-');
  const f2 = (n) => (Number.isFinite(n) ? n.toFixed(2) : '-');
  const pct = (n) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : '-');
  const range = (r) => `${f2(r.median)} (${f2(r.min)}-${f2(r.max)})`;
  const disturbed = configs.flatMap((config) =>
    (config.results ?? []).filter((r) => r.othersShare > DISTURBED).map((r) => `${config.id}${config.processes > 1 ? `#${r.process}` : ''} pass ${r.pass + 1} (${pct(r.othersShare)})`),
  );
  const runCount = configs.reduce((sum, config) => sum + (config.results?.length ?? 0), 0);

  const logCell = (config, summary) => {
    if (!config.log) return '-';
    const { log } = summary;
    if (!log) return 'not run';
    const failed = config.logProblem ? ` **log check failed: ${config.logProblem}**` : '';
    if (config.log.kind === 'pipe') {
      return `pipe: ≈${f2(log.linesPerRequest)} line/req (${f0(log.bytesPerRequest)} B/req ÷ ${GATEWAY}'s B/line), \`cat\` ${f1(log.consumerUs)} µs/req on core ${CLIENT_CORE}${failed}`;
    }
    return `file: ${f2(log.linesPerRequest)} line/req, ${f0(log.bytesPerLine)} B/line${failed}`;
  };
  const empty = `|${' |'.repeat(9)}`; // the 9 cells after "req/s" of a row that has no figures
  const rows = configs.map((config) => {
    const { id, authenticates, problem } = config;
    const label = config.processes > 1 ? `${config.label} (${config.processes} processes)` : config.label;
    const { summary } = byId.get(id);
    if (problem) return `| \`${id}\` | ${label} | ${authenticates ? 'yes' : 'no'} | **not measured: ${problem}** ${empty}`;
    const vsGateway = gateway && gateway.summary.runs > 0 && id !== GATEWAY ? ratio(summary, gateway.summary).median : NaN;
    const flags = summary.non2xx || summary.socketErrors ? `**${summary.non2xx} / ${summary.socketErrors} (INVALID)**` : '0 / 0';
    const core = `${pct(summary.serverShare)} / ${pct(summary.othersShare)}`;
    return `| \`${id}\` | ${label} | ${authenticates ? 'yes' : 'no'} | ${f0(summary.rps)} | ${f0(summary.rpsMin)}-${f0(summary.rpsMax)} | ${f2(summary.p50Ms)} | ${f2(summary.p99Ms)} | ${f2(summary.p999Ms)} | ${f1(summary.cpuUs)} | ${core} | ${flags} | ${logCell(config, summary)} | ${id === GATEWAY ? '1.00' : f2(vsGateway)} |`;
  });
  for (const { id, label, reason } of notRun) rows.push(`| \`${id}\` | ${label} | yes | **not run: ${reason}** ${empty}`);

  /** The goal rows for one set of rows: HEADLINE (the logging rows) or REFERENCE (the quiet ones). */
  const goalRows = ({ gateway: gatewayId, haproxy: haproxyId, fastify: fastifyId, floor: floorId }) => {
    const [gw, haproxy, fastify, floor] = [gatewayId, haproxyId, fastifyId, floorId].map((id) => byId.get(id));
    /** Why a goal has no figure: rows left out by BENCH_ONLY, or a row that failed (its cell in the table says how). */
    const missing = (...ids) => {
      const absent = ids.filter((id) => !byId.has(id));
      if (absent.length) return `not run (${absent.map((id) => `\`${id}\``).join(', ')} left out by BENCH_ONLY)`;
      return 'not measurable (see the table)';
    };
    const out = [];
    // req/s vs HAProxy jwt_verify, applicable where the bare forwarder reaches 1.5x it.
    {
      const name = `req/s: \`${gatewayId}\` ÷ \`${haproxyId}\``;
      const target = `>= ${GOALS.haproxy.atLeast} where \`${floorId}\` ÷ \`${haproxyId}\` >= ${GOALS.haproxy.floorAtLeast}`;
      if (!clean(gw) || !clean(haproxy) || !clean(floor)) out.push(`| ${name} | - | ${target} | ${missing(gatewayId, haproxyId, floorId)} |`);
      else {
        const r = ratio(gw.summary, haproxy.summary);
        const f = ratio(floor.summary, haproxy.summary);
        const figure = `${range(r)}; floor \`${floorId}\` ÷ \`${haproxyId}\` ${range(f)}`;
        const result =
          f.median < GOALS.haproxy.floorAtLeast
            ? `not applicable on this machine (floor is ${f2(f.median)}); ratio ${f2(r.median)} reported${r.median >= GOALS.haproxy.atLeast ? ', would be met' : `, would be **not met**`}`
            : r.median >= GOALS.haproxy.atLeast
              ? 'met'
              : `**not met** (${f2(r.median)})`;
        out.push(`| ${name} | ${figure} | ${target} | ${result} |`);
      }
    }
    {
      const name = `req/s: \`${gatewayId}\` ÷ \`${fastifyId}\``;
      const target = `>= ${GOALS.fastify.atLeast}`;
      if (!clean(gw) || !clean(fastify)) out.push(`| ${name} | - | ${target} | ${missing(gatewayId, fastifyId)} |`);
      else {
        const r = ratio(gw.summary, fastify.summary);
        out.push(`| ${name} | ${range(r)} | ${target} | ${r.median >= GOALS.fastify.atLeast ? 'met' : `**not met** (${f2(r.median)})`} |`);
      }
    }
    {
      const name = `CPU µs/req: \`${gatewayId}\` ÷ \`${floorId}\` (Node floor)`;
      const target = `<= ${GOALS.cpu.atMost}`;
      if (!clean(gw) || !clean(floor)) out.push(`| ${name} | - | ${target} | ${missing(gatewayId, floorId)} |`);
      else {
        const r = ratio(gw.summary, floor.summary, 'passCpu');
        const figure = `${range(r)} (${f1(gw.summary.cpuUs)} vs ${f1(floor.summary.cpuUs)} µs)`;
        out.push(`| ${name} | ${figure} | ${target} | ${r.median <= GOALS.cpu.atMost ? 'met' : `**not met** (${f2(r.median)})`} |`);
      }
    }
    {
      const name = `req/s: \`${gatewayId}\` ÷ \`${floorId}\``;
      if (!clean(gw) || !clean(floor)) out.push(`| ${name} | - | none (reported) | ${missing(gatewayId, floorId)} |`);
      else out.push(`| ${name} | ${range(ratio(gw.summary, floor.summary))} | none (reported) | - |`);
    }
    for (const [label, key] of [
      ['p99', 'p99Ms'],
      ['p99.9', 'p999Ms'],
    ]) {
      const name = `${label}: \`${gatewayId}\` vs \`${haproxyId}\``;
      if (!clean(gw) || !clean(haproxy)) {
        out.push(`| ${name} | - | no worse | ${missing(gatewayId, haproxyId)} |`);
        continue;
      }
      const [mine, theirs] = [gw.summary[key], haproxy.summary[key]];
      out.push(`| ${name} | ${f2(mine)} ms vs ${f2(theirs)} ms | no worse | ${mine <= theirs ? 'met' : `**not met** (${f2(mine / theirs)}x)`} |`);
    }
    return out;
  };

  /** The access line's cost: the logging gateway's req/s over the quiet one's, same run (at most 10% of throughput). */
  const accessLineRows = () =>
    [GATEWAY, 'gateway-full-log-pipe'].map((id) => {
      const name = `access line cost: req/s \`${id}\` ÷ \`${QUIET}\``;
      const [gw, quiet] = [byId.get(id), byId.get(QUIET)];
      if (!clean(gw) || !clean(quiet)) return `| ${name} | - | >= ${ACCESS_LINE_AT_LEAST} | ${byId.has(id) && byId.has(QUIET) ? 'not measurable (see the table)' : 'not run (left out by BENCH_ONLY)'} |`;
      const r = ratio(gw.summary, quiet.summary);
      const cpu = ratio(gw.summary, quiet.summary, 'passCpu');
      return `| ${name} | ${range(r)}; CPU µs/req ${range(cpu)} | >= ${ACCESS_LINE_AT_LEAST} | ${r.median >= ACCESS_LINE_AT_LEAST ? 'met' : `**not met** (${f2(r.median)})`} |`;
    });
  /** wrk's latencies beside the ones the server logged for the same runs: where a tail is spent. */
  const tailRows = () => {
    const logged = configs.filter((config) => byId.get(config.id).summary.logged);
    if (logged.length === 0) return [];
    const triple = (l) => `${f2(l.p50Ms)} / ${f2(l.p99Ms)} / ${f2(l.p999Ms)}`;
    return [
      '### Where the tail is: inside the server, or around it',
      '',
      "wrk's latency runs from writing a request to reading the whole answer. The server's own, from its log lines in the",
      "same runs, runs from reading the request to handing the answer to the kernel: the gateway's `latencyMs` (from the",
      "request's head parsed), HAProxy's `Ta` (from its first byte, whole milliseconds). What wrk sees beyond the logged",
      'figure was spent before the server read the request or after it sent the answer: waiting in the kernel for the',
      'server to get to the socket, or on the client side. Medians over the runs.',
      '',
      '| id | wrk p50 / p99 / p99.9 ms | logged p50 / p99 / p99.9 ms | p99.9 not in the logged time |',
      '|---|---:|---:|---:|',
      ...logged.map((config) => {
        const { summary } = byId.get(config.id);
        return `| \`${config.id}\` | ${triple(summary)} | ${triple(summary.logged)} | ${f2(summary.p999Ms - summary.logged.p999Ms)} ms |`;
      }),
      '',
    ];
  };
  /** The headline against itself on node's default helper threads: what the shipped pool size does, same run. */
  const helperRows = () => {
    const [shipped, four] = [byId.get(GATEWAY), byId.get(FOUR_HELPERS)];
    if (!four) return [];
    const heading = [
      `### The shipped pool size against node's default of four helpers: \`${GATEWAY}\` and \`${FOUR_HELPERS}\``,
      '',
      `Both run the gateway as shipped; \`${GATEWAY}\` with its node flags (${GATEWAY_NODE_FLAGS.join(' ') || 'none'}), \`${FOUR_HELPERS}\``,
      `with \`${FOUR_HELPERS_FLAGS.join(' ')}\` after them: node's own default of four V8 helper threads. Latencies and CPU: medians over`,
      "the runs; the ratio: pass by pass, median (range). Reported, not a goal.",
      '',
    ];
    if (!clean(shipped) || !clean(four)) return [...heading, 'Not measurable (see the table).', ''];
    const [a, b] = [shipped.summary, four.summary];
    return [
      ...heading,
      '| id | req/s | p99 ms | p99.9 ms | CPU µs/req |',
      '|---|---:|---:|---:|---:|',
      ...[[GATEWAY, a], [FOUR_HELPERS, b]].map(([id, s]) => `| \`${id}\` | ${f0(s.rps)} | ${f2(s.p99Ms)} | ${f2(s.p999Ms)} | ${f1(s.cpuUs)} |`),
      '',
      `req/s \`${GATEWAY}\` ÷ \`${FOUR_HELPERS}\`: ${range(ratio(a, b))}; CPU µs/req: ${range(ratio(a, b, 'passCpu'))}.`,
      '',
    ];
  };
  /** Each process of a row that ran several, by its own medians: how far identical processes differ in this run. */
  const processRows = () => {
    const several = configs.filter((config) => config.processes > 1 && !config.problem);
    if (several.length === 0) return [];
    return [
      '### The processes of each row that ran several',
      '',
      `The rows ${several.map((config) => `\`${config.id}\``).join(', ')} each ran ${GATEWAY_PROCESSES} identical processes (\`BENCH_GATEWAY_PROCESSES\`),`,
      "each driven in the rotation like a row of its own; the row's figures above are medians over all its processes' runs,",
      "and its ratios take, pass by pass, the median of its processes' runs in that pass. Each process's own medians;",
      'for a gateway process, also the CPU its garbage collector took per request, scavenges and mark-compact apart,',
      "and a scavenge's mean pause (node's `gc` performance entries, read around each run): a process that promotes",
      "much of every request's graph (docs/performance.md, \"The slow process\") shows there, one slowed by the VM does not.",
      '',
      '| row | process | req/s | CPU µs/req | p99 ms | p99.9 ms | GC µs/req: scavenge + mark-compact | scavenge mean ms |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...several.flatMap((config) =>
        Array.from({ length: config.processes }, (_, i) => {
          const own = config.results.filter((r) => r.process === i + 1);
          const m = (key) => median(own.map((r) => r[key]));
          const g = (key) => (own.every((r) => r.gc) ? median(own.map((r) => r.gc[key])) : NaN);
          const gc = Number.isNaN(g('scavengeUsPerRequest')) ? '- | -' : `${f1(g('scavengeUsPerRequest'))} + ${f1(g('majorUsPerRequest'))} | ${f2(g('scavengeMeanMs'))}`;
          return `| \`${config.id}\` | ${i + 1} | ${f0(m('rps'))} | ${f1(m('cpuUsPerRequest'))} | ${f2(m('p99Ms'))} | ${f2(m('p999Ms'))} | ${gc} |`;
        }),
      ),
      '',
    ];
  };
  const logRows = configs.filter((config) => config.log);
  return [
    '# Protected call, side by side',
    '',
    machineLine(facts, [`nginx ${versions.nginx}`, `HAProxy ${versions.haproxy}`, `wrk ${versions.wrk}`]),
    '',
    `Servers under test pinned to core ${SERVER_CORE}; \`wrk -t1 -c${CONNECTIONS} -d${DURATION_S}s -s wrk-latency.lua\` (p99.9 from wrk's own histogram), the shared nginx upstream`,
    `(one worker, ${UPSTREAM_BODY.length}-byte JSON) and the gateway's log pipe consumer (\`cat\`) pinned to core ${CLIENT_CORE}. Every configuration got a ${WARMUP_S} s warm-up, then ${PASSES} interleaved`,
    `pass(es) of ${RUNS} run(s) each; figures are medians over the runs. Only the server being driven runs: the others are frozen (SIGSTOP)`,
    `meanwhile; a thawed one gets ${THAW_SETTLE_MS} ms to itself and ${REWARM_S} s of unmeasured load before its run in each pass. Every request is \`GET ${PATH}\` with an ES256`,
    "access token from the gateway's password grant: the peers get the token of the headline gateway's first process and check it against its",
    "public key (from its JWKS); each other gateway process has its own key ring, so its own token of the same shape.",
    "Before any load, each configuration answered 200 with the upstream's body, and each that authenticates answered 401",
    'without a token and to a forged one.',
    '',
    `**The headline is the gateway as shipped** (\`${GATEWAY}\`): its default \`log.level: info\`, one JSON access line per request to`,
    "standard output, here redirected to a file in the temp dir; its full pipeline is ip-range, regex-protection (the five",
    'built-in pattern sets) and spike arrest per client_id (never refusing here), then the Bearer and revocation checks.',
    `The peers it is held against log too, each its conventional way (\`-log\` rows); the quiet rows (\`${QUIET}\`, the`,
    'peers without `-log`) are kept for reference. Log check: before each run of a logging row its file\'s size is noted;',
    `after it and ${LOG_SETTLE_MS} ms the lines past that offset are counted: at least ${pct(LOG_LINES_AT_LEAST)} of (lines per request x requests) or the row fails`,
    "(fastify's logger writes 4 lines per proxied request: fastify's own 2 and @fastify/reply-from's 2). The pipe row's",
    "bytes are what `cat` read (/proc/<pid>/io `rchar`),",
    `its lines estimated with \`${GATEWAY}\`'s bytes per line in the same pass.`,
    '',
    "CPU µs/req: user + system time of the server's process group (all its processes and threads, from /proc) over the",
    'run, divided by the requests wrk completed. "÷ gateway" is this row\'s req/s over the headline gateway\'s, pass by',
    'pass, median over the passes.',
    `"core ${SERVER_CORE}: server / others": the share of the server's core that the server used during its runs, and the share`,
    'everything else used (other processes, interrupts, hypervisor steal): a server that is not near 100% was waiting on',
    'something (the client side, the upstream), and a large "others" means the machine was not quiet.',
    ...(disturbed.length
      ? ['', `**The machine was not quiet**: in ${disturbed.length} of ${runCount} runs, other work took more than ${pct(DISTURBED)} of core ${SERVER_CORE}: ${disturbed.join(', ')}. Those figures are low, and so is any ratio taken in their pass.`]
      : []),
    '',
    `| id | configuration | auth | req/s | req/s range | p50 ms | p99 ms | p99.9 ms | CPU µs/req | core ${SERVER_CORE}: server / others | non-2xx / socket errors | log (per run, median) | ÷ gateway |`,
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|',
    ...rows,
    '',
    ...processRows(),
    `Lines logged over all measured runs: ${logRows.map((config) => `\`${config.id}\` ${f0(byId.get(config.id).summary.log?.lines)}${config.processes > 1 ? ` (${config.processes} processes)` : ''}${config.log.kind === 'pipe' ? ' (estimated)' : ''}`).join(', ') || 'none'}.`,
    '',
    `## Goals: the gateway as shipped (\`${GATEWAY}\`) against the logging peers`,
    '',
    'Ratios taken pass by pass in this run: median (range over the passes). Latencies: medians over the runs.',
    '',
    '| goal | figure | target | result |',
    '|---|---:|---:|---|',
    ...goalRows(HEADLINE),
    ...accessLineRows(),
    '',
    ...tailRows(),
    ...helperRows(),
    `### For reference, not the headline: quiet gateway (\`${QUIET}\`) against the quiet peers`,
    '',
    '| goal | figure | target | result |',
    '|---|---:|---:|---|',
    ...goalRows(REFERENCE),
    '',
    `Whole benchmark: ${Math.round(elapsedS)} s.`,
    '',
  ].join('\n');
}

if (isMainScript(import.meta.url)) await runBenchmark(protectedCall);
