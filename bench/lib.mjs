// Shared pieces of the benchmark scripts: processes, ports, machine facts, result files.
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';

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

/** A throw-away redis-server without persistence on a free port. */
export async function startRedis() {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await until(() => ping(port), `redis-server on ${port}`);
  return { url: `redis://127.0.0.1:${port}/0`, stop: () => child.kill('SIGKILL') };
}

/** `token-gateway serve` as a child process; resolves with its URL once it listens. */
export async function startGateway(configFile, env = {}) {
  const child = spawn(process.execPath, ['dist/cli/main.js', 'serve', '--config', configFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const url = await new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk.toString();
      const match = /"msg":"token-gateway listening"/.test(buffered) && /"url":"(http:\/\/[^"]+)"/.exec(buffered);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
  });
  child.stdout.resume();
  await until(async () => (await fetch(`${url}/readyz`)).status === 200, `${url} ready`);
  return { url, stop: () => child.kill('SIGTERM') };
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

/** Writes `bench/results/<date>-<name>.md` and returns its path. */
export async function writeResult(name, markdown) {
  const dir = join('bench', 'results');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().slice(0, 10)}-${name}.md`);
  await writeFile(file, markdown);
  return file;
}
