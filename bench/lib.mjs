// Shared pieces of the benchmark scripts: processes, ports, machine facts, result files.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CLOCK_TICKS_PER_SECOND, groupCpuTicks, startPinned } from './load.mjs';

/** The checkout this benchmark belongs to (its `dist/` is the build measured). */
export const REPO_DIR = dirname(dirname(fileURLToPath(import.meta.url)));

/**
 * True when `moduleUrl` (a benchmark's `import.meta.url`) is the script node was started with (`node bench/<name>.mjs`),
 * false when bench/run.mjs or a test imports it. One spelling for every benchmark's main block.
 */
export const isMainScript = (moduleUrl) => process.argv[1] !== undefined && moduleUrl === pathToFileURL(process.argv[1]).href;

/**
 * A benchmark's main block: run it, print its table and the file it was written to, and exit. Exit, not return: a
 * client or timer a benchmark leaves behind must not keep a finished run waiting (stdout, a file, a pipe or a
 * terminal, is written synchronously on Linux, so nothing printed is lost).
 */
export async function runBenchmark(benchmark) {
  const { markdown, file } = await benchmark();
  process.stdout.write(`${markdown}\nwritten to ${file}\n`);
  process.exit(0);
}

/**
 * The node flags a build of the gateway ships with (`NODE_FLAGS` of src/cli/node-flags.ts, read from the build's
 * `dist/`), or none for a build from before they existed. Every benchmark starts the gateway with them, as its
 * binary, `npm start` and the container do; the peers and the bare forwarder run on node's own defaults.
 */
export async function shippedNodeFlags(root) {
  if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) throw new Error(`no build in ${root} (npm run build first)`);
  const file = join(root, 'dist', 'cli', 'node-flags.js');
  return existsSync(file) ? [...(await import(pathToFileURL(file).href)).NODE_FLAGS] : [];
}

/**
 * The gateway's node flags in every benchmark: those of the build measured (this checkout's `dist/`), then
 * `BENCH_NODE_FLAGS` (space-separated) for a run with others. node takes the last value of a flag, so
 * `BENCH_NODE_FLAGS=--v8-pool-size=4` measures the gateway on node's default of four V8 helper threads. Every result
 * file's machine line names them (machineLine).
 */
export const BENCH_NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
export const GATEWAY_NODE_FLAGS = [...(await shippedNodeFlags(REPO_DIR)), ...BENCH_NODE_FLAGS];

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition, what, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs} ms`);
    await sleep(25);
  }
}

function ping(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.on('data', (data) => {
      socket.end();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.on('error', () => resolve(false));
  });
}

/** A throw-away redis-server without persistence on a free port; with `cores` (e.g. '1'), pinned to them. */
export async function startRedis({ cores } = {}) {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = cores === undefined ? spawn('redis-server', args, { stdio: 'ignore' }) : spawn('taskset', ['-c', cores, 'redis-server', ...args], { stdio: 'ignore' });
  await until(() => ping(port), `redis-server on ${port}`);
  return { url: `redis://127.0.0.1:${port}/0`, stop: () => child.kill('SIGKILL') };
}

/** `token-gateway serve` as a child process; resolves with its URL (and its admin listener's, if any) once it is ready. */
export async function startGateway(configFile, env = {}) {
  const child = spawn(process.execPath, [...GATEWAY_NODE_FLAGS, join(REPO_DIR, 'dist', 'cli', 'main.js'), 'serve', '--config', configFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const { url, adminUrl } = await new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk.toString();
      const line = buffered.split('\n').find((candidate) => candidate.includes('"msg":"token-gateway listening"'));
      const match = line && /"url":"(http:\/\/[^"]+)"/.exec(line);
      if (match) resolve({ url: match[1], adminUrl: /"adminUrl":"(http:\/\/[^"]+)"/.exec(line)?.[1] });
    });
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
  });
  child.stdout.resume();
  await until(async () => (await fetch(`${url}/readyz`)).status === 200, `${url} ready`);
  return { url, adminUrl, stop: () => child.kill('SIGTERM') };
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function machine() {
  const cpus = os.cpus();
  let redis = 'unknown';
  try {
    redis = (execFileSync('redis-server', ['--version']).toString().split(' ')[2] ?? redis).replace(/^v=/, '');
  } catch {
    // reported as unknown
  }
  return {
    date: new Date().toISOString(),
    cpu: `${cpus[0]?.model ?? 'unknown'} x ${cpus.length}`,
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    redis,
  };
}

/**
 * Writes `bench/results/<date>-<name>.md` and returns its path. A file of that name already there (an earlier run of
 * the same day, perhaps committed and cited by the docs) is never replaced: the run goes to `<date>-<name>-2.md`,
 * `-3`, and so on.
 */
export async function writeResult(name, markdown) {
  const dir = join('bench', 'results');
  await mkdir(dir, { recursive: true });
  const stem = join(dir, `${new Date().toISOString().slice(0, 10)}-${name}`);
  for (let nth = 1; ; nth++) {
    const file = nth === 1 ? `${stem}.md` : `${stem}-${nth}.md`;
    try {
      await writeFile(file, markdown, { flag: 'wx' });
      return file;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
  }
}

/** Resident set size of a live process in KiB (`VmRSS` in /proc/<pid>/status). */
export function rssKiB(pid) {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]);
}

/** Open file descriptors of a live process (entries of /proc/<pid>/fd). */
export const openFds = (pid) => readdirSync(`/proc/${pid}/fd`).length;

/**
 * The machine line every result file opens with. `extras` names further versions ("Redis 7.0.15", "wrk 4.2.0"),
 * written after Node's; it ends with the node flags the gateway's processes ran with, unless the benchmark starts none
 * (`gatewayProcesses: false`).
 */
export function machineLine(facts = machine(), extras = [], { gatewayProcesses = true } = {}) {
  const line = `Machine: ${facts.cpu}, ${facts.memory}, ${facts.os}; ${[`Node ${facts.node}`, ...extras].join(', ')}. Date: ${facts.date}.`;
  if (!gatewayProcesses) return line;
  return `${line} Gateway's node flags: ${GATEWAY_NODE_FLAGS.length > 0 ? GATEWAY_NODE_FLAGS.join(' ') : 'none'}.`;
}

/**
 * CPU ticks since boot from /proc/stat, of the whole machine or of one core (`cpu`: its number): `busy` is everything
 * but idle and iowait.
 */
export function machineCpuTicks(cpu) {
  const name = cpu === undefined ? 'cpu' : `cpu${cpu}`;
  const line = readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no ${name} line in /proc/stat`);
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  return { total, busy: total - fields[3] - fields[4] };
}

/** The benchmarks' one user and one app (active), for accounts.yaml and the token requests. */
export const BENCH_ACCOUNT = Object.freeze({ username: 'bench', password: 'bench-password', client_id: 'bench-app', client_secret: 'bench-secret' });

/** Writes an accounts.yaml holding BENCH_ACCOUNT, hashed with the gateway's own `hashSecret` (dist/ must be built). */
export async function writeBenchAccounts(file) {
  const { hashSecret } = await import('../dist/index.js');
  const [user, app] = await Promise.all([hashSecret(BENCH_ACCOUNT.password), hashSecret(BENCH_ACCOUNT.client_secret)]);
  await writeFile(
    file,
    `users:\n  - { username: ${BENCH_ACCOUNT.username}, password_hash: "${user}", status: active }\n` +
      `apps:\n  - { client_id: ${BENCH_ACCOUNT.client_id}, client_secret_hash: "${app}", status: active }\n`,
  );
  return file;
}

/**
 * `token-gateway serve` (dist/cli/main.js) pinned to `cores` as a process group of its own (load.mjs startPinned:
 * cluster workers included, killed on exit), on a free loopback port written into `<dir>/<name>.yaml` together with
 * `config` (gateway.yaml lines, no `listen`). Resolves once /readyz answers 200. `server.pid` is the serving process
 * (with `workers` above one, the primary).
 */
export async function startPinnedGateway({ dir, name, cores, config, timeoutMs = 30_000 }) {
  const port = await freePort();
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, [`listen: { host: 127.0.0.1, port: ${port} }`, 'admin: { port: 0 }', ...config, ''].join('\n'));
  const server = startPinned(name, cores, process.execPath, [...GATEWAY_NODE_FLAGS, join(REPO_DIR, 'dist', 'cli', 'main.js'), 'serve', '--config', file], { cwd: REPO_DIR });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.exited) throw new Error(`${name} exited while starting: ${server.stderr || '(no output)'}`);
    const status = await fetch(`${url}/readyz`).then((response) => (response.arrayBuffer(), response.status)).catch(() => 0);
    if (status === 200) return { server, url, port };
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`${name} not ready within ${timeoutMs} ms: ${server.stderr || '(no output)'}`);
    }
    await sleep(50);
  }
}

// A small upstream: `size` bytes of JSON-ish body in `writes` writes. A request carrying `x-bench-slow: <ms>` gets the
// first write at once and the rest after that many ms, so a client can be sure to cut it off mid-response.
const UPSTREAM_SOURCE = `
const http = require('node:http');
const [port, size, writes] = process.argv.slice(1).map(Number);
const body = Buffer.alloc(size, 'x');
body.write('{"bench":"', 0);
body.write('"}', size - 2);
const step = Math.ceil(size / writes);
const chunks = [];
for (let at = 0; at < size; at += step) chunks.push(body.subarray(at, Math.min(size, at + step)));
const server = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': size });
  const slow = Number(req.headers['x-bench-slow'] || 0);
  if (!slow) {
    for (const chunk of chunks) res.write(chunk);
    return res.end();
  }
  res.write(chunks[0]);
  setTimeout(() => {
    for (const chunk of chunks.slice(1)) if (!res.destroyed) res.write(chunk);
    res.end();
  }, slow);
});
server.keepAliveTimeout = 60000;
server.listen(port, '127.0.0.1');
`;

/** A Node `http` upstream pinned to `cores` (see UPSTREAM_SOURCE); resolves once it accepts connections. */
export async function startNodeUpstream({ cores, size = 300, writes = 1 }) {
  const port = await freePort();
  const server = startPinned('upstream', cores, process.execPath, ['-e', UPSTREAM_SOURCE, String(port), String(size), String(writes)]);
  await until(async () => server.exited || (await fetch(`http://127.0.0.1:${port}/`).then((r) => (r.arrayBuffer(), r.status))) === 200, `upstream on ${port}`);
  if (server.exited) throw new Error(`upstream exited while starting: ${server.stderr || '(no output)'}`);
  return { server, url: `http://127.0.0.1:${port}`, port };
}

const drivers = new Set();
let driverExitHandler = false;

/**
 * Runs `node <script> <args...>` pinned to `cores` (a load driver off the core under test) and resolves with the JSON
 * object on the last line of its standard output; its standard error passes through. Killed after `timeoutMs`, and
 * when this process exits.
 */
export function runPinnedNode(cores, script, args, { timeoutMs }) {
  if (!driverExitHandler) {
    driverExitHandler = true;
    process.on('exit', () => {
      for (const child of drivers) child.kill('SIGKILL');
    });
  }
  const child = spawn('taskset', ['-c', cores, process.execPath, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  drivers.add(child);
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      drivers.delete(child);
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0) return reject(new Error(`${script} ${args[0] ?? ''} ended with ${signal ?? `code ${code}`}${signal === 'SIGKILL' ? ` (time limit ${timeoutMs} ms?)` : ''}: ${last}`));
      try {
        resolve(JSON.parse(last));
      } catch {
        reject(new Error(`${script} ${args[0] ?? ''} printed no JSON result: ${last.slice(0, 200)}`));
      }
    });
  });
}

/**
 * Runs `fn` and measures the CPU time of the process group `pgid` meanwhile: resolves with `fn`'s result and
 * `cpu: { us, seconds, share }`, share being the fraction of one core the group used over the wall time. With `core`
 * (the one core the group is pinned to), also `othersOnCore`: the share of that core other processes used.
 */
export async function withGroupCpu(pgid, fn, { core } = {}) {
  const before = groupCpuTicks(pgid);
  const coreBefore = core === undefined ? undefined : machineCpuTicks(core);
  const startedAt = performance.now();
  const result = await fn();
  const seconds = (performance.now() - startedAt) / 1000;
  const ticks = groupCpuTicks(pgid) - before;
  const us = (ticks * 1e6) / CLOCK_TICKS_PER_SECOND;
  const cpu = { us, seconds, share: us / 1e6 / seconds };
  if (coreBefore) {
    // The group is pinned to `core` alone: whatever else kept that core busy belongs to other processes.
    const coreAfter = machineCpuTicks(core);
    cpu.othersOnCore = Math.max(0, coreAfter.busy - coreBefore.busy - ticks) / Math.max(1, coreAfter.total - coreBefore.total);
  }
  return { result, cpu };
}

/**
 * How busy the machine is before a benchmark starts (other people's processes included), over `ms`: the share of all
 * cores that was not idle. A figure well above zero means the results below share the machine with something else.
 */
export async function backgroundLoad(ms = 1_000) {
  const before = machineCpuTicks();
  await sleep(ms);
  const after = machineCpuTicks();
  return (after.busy - before.busy) / Math.max(1, after.total - before.total);
}

/**
 * A positive number (or 0, with `zero`; a whole one, with `whole`) from the environment (a benchmark knob), or
 * `fallback`; anything else stops the run with its name.
 */
export function knob(name, fallback, { zero = false, whole = false } = {}) {
  const value = Number(process.env[name] ?? fallback);
  const allowed = Number.isFinite(value) && (value > 0 || (zero && value === 0)) && (!whole || Number.isInteger(value));
  if (!allowed) throw new Error(`${name} must be a ${zero ? 'non-negative' : 'positive'}${whole ? ' whole' : ''} number, got "${process.env[name]}"`);
  return value;
}
