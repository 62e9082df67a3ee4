// Load-test pieces: servers pinned to a core as process groups of their own, their CPU time from /proc, and wrk.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Lua script every runWrk loads: a `done` that prints p50/p90/p99/p99.9/max in one parseable line. */
export const WRK_LATENCY_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'wrk-latency.lua');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Before a frozen server is driven again: time to run what came due while it was frozen (timers, a collection). */
export const THAW_SETTLE_MS = 500;

export const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

const running = new Set();
function killAllSync() {
  for (const server of running) server.signal('SIGKILL');
}
let exitHandlersInstalled = false;
function installExitHandlers() {
  if (exitHandlersInstalled) return;
  exitHandlersInstalled = true;
  // Whatever happens to the benchmark (an exception, Ctrl-C, a kill), no server it started outlives it.
  process.on('exit', killAllSync);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      killAllSync();
      process.exit(128 + os.constants.signals[signal]);
    });
  }
}

/**
 * Starts `command args` with its CPU affinity set to `cores` (taskset execs the command, so the pid is the
 * server's), as the leader of a new process group: the group is the server with every worker it forks, for the CPU
 * count and for stopping. stdout is discarded unless `stdout` names a file descriptor; stderr is kept in memory for
 * error messages.
 */
export function startPinned(name, cores, command, args, { cwd, stdout = 'ignore' } = {}) {
  installExitHandlers();
  const child = spawn('taskset', ['-c', cores, command, ...args], { cwd, detached: true, stdio: ['ignore', stdout, 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    if (stderr.length < 20_000) stderr += chunk.toString();
  });
  let exited = false;
  const exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  exit.then(() => {
    exited = true;
  });
  const server = {
    name,
    pid: child.pid,
    get exited() {
      return exited;
    },
    get stderr() {
      return stderr.trim();
    },
    exit,
    signal(signal) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    },
    /**
     * Freezes the whole group (SIGSTOP) while another server is measured on the same core: an idle server's timers
     * and, for Node, its garbage collection after a load (V8 collects when the allocation rate drops) would run on
     * that core in the middle of someone else's run. `resume` (SIGCONT) thaws it.
     */
    freeze() {
      server.signal('SIGSTOP');
    },
    resume() {
      server.signal('SIGCONT');
    },
    /** Thaws the server, gives it THAW_SETTLE_MS, runs `work` (its result is returned) and freezes it again. */
    async alone(work) {
      server.resume();
      await sleep(THAW_SETTLE_MS);
      try {
        return await work();
      } finally {
        server.freeze();
      }
    },
    /** SIGTERM to the whole group (thawed first), SIGKILL after `graceMs`. */
    async stop(graceMs = 3_000) {
      server.signal('SIGCONT');
      server.signal('SIGTERM');
      await Promise.race([exit, sleep(graceMs)]);
      server.signal('SIGKILL');
      running.delete(server);
    },
  };
  running.add(server);
  return server;
}

/** Resolves once something accepts TCP connections on the port; rejects if the server exits first or takes too long. */
export async function waitForPort(server, port, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.exited) throw new Error(`${server.name} exited before listening on ${port}: ${server.stderr || '(no output)'}`);
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${server.name} not listening on ${port} within ${timeoutMs} ms: ${server.stderr || '(no output)'}`);
    await sleep(50);
  }
}

/** User + system CPU time, in clock ticks, of every live process in the group `pgid` (all threads included). */
export function groupCpuTicks(pgid) {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const fields = statFields(stat);
    if (Number(fields[2]) !== pgid) continue;
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks;
}

/** Each thread of `pid`, from /proc/<pid>/task: its id, user + system CPU time in clock ticks, and its nice value. */
export function threadCpuTicks(pid) {
  const threads = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const fields = statFields(stat);
    threads.push({ tid: Number(tid), ticks: Number(fields[11]) + Number(fields[12]), nice: Number(fields[16]) });
  }
  return threads;
}

/**
 * A /proc stat line's fields after "pid (comm) ", so that [0] is the state (field 3, 1-based): pgrp is [2], utime
 * and stime [11] and [12], nice [16]. The name in parentheses may hold spaces and parentheses, hence the last ')'.
 */
const statFields = (stat) => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/**
 * Clock ticks of one core from /proc/stat: `total`, and `busy` (everything but idle and iowait: user, system,
 * interrupts, and steal time taken by the hypervisor).
 */
export function coreTicks(core) {
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith(`cpu${core} `));
  if (!line) return { total: NaN, busy: NaN };
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  const busy = user + nice + system + irq + softirq + (steal ?? 0);
  return { total: busy + idle + iowait, busy };
}

const DURATION_UNITS = { us: 1e-3, ms: 1, s: 1_000, m: 60_000 };
const toMs = (value, unit) => Number(value) * DURATION_UNITS[unit];

/**
 * Parses wrk's report. Latencies come from the `bench-latency-us:` line of wrk-latency.lua when the run loaded it
 * (exact microseconds, p99.9 included); otherwise from the `--latency` table (50/75/90/99 only, rounded to two
 * decimals in wrk's unit), and `p999Ms` is undefined: token-endpoint.mjs runs its own Lua script and reads the table.
 */
export function parseWrk(output) {
  const number = (pattern) => {
    const match = pattern.exec(output);
    return match ? Number(match[1]) : undefined;
  };
  const table = (percent) => {
    const match = new RegExp(`^\\s*${percent}(?:\\.000)?%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(output);
    return match ? toMs(match[1], match[2]) : undefined;
  };
  const lua = /^bench-latency-us: p50=(\d+) p90=(\d+) p99=(\d+) p99\.9=(\d+) max=(\d+)\s*$/m.exec(output);
  const [p50Ms, p90Ms, p99Ms, p999Ms, maxMs] = lua ? lua.slice(1).map((us) => Number(us) / 1_000) : [table(50), table(90), table(99), undefined, undefined];
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const result = {
    requests: number(/(\d+) requests in /),
    rps: number(/Requests\/sec:\s+([\d.]+)/),
    p50Ms,
    p90Ms,
    p99Ms,
    p999Ms,
    maxMs,
    non2xx: number(/Non-2xx or 3xx responses: (\d+)/) ?? 0,
    socketErrors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
  if (result.requests === undefined || result.rps === undefined || result.p99Ms === undefined) {
    throw new Error(`could not read wrk's report:\n${output}`);
  }
  return result;
}

/**
 * One wrk run against `url`, wrk pinned to `cores`; the server group's CPU time, and the ticks of the core it is
 * pinned to (`serverCore`), are read just before and just after. wrk loads wrk-latency.lua, so the latencies are
 * p50Ms, p90Ms, p99Ms, p999Ms and maxMs. Returns wrk's figures, `cpuUsPerRequest` (server
 * CPU microseconds per completed request), and the shares of the server's core that the server (`serverShare`)
 * and everything else (`othersShare`: other processes, interrupts, steal) used meanwhile.
 */
export async function runWrk({ url, headers = {}, connections, durationS, cores, serverPgid, serverCore }) {
  const args = ['-c', cores, 'wrk', '-t1', `-c${connections}`, `-d${durationS}s`, '--latency', '--timeout', '5s', '-s', WRK_LATENCY_SCRIPT];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(url);
  const before = serverPgid === undefined ? 0 : groupCpuTicks(serverPgid);
  const coreBefore = coreTicks(serverCore);
  const output = await new Promise((resolve, reject) => {
    execFile('taskset', args, { timeout: (durationS + 30) * 1000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`wrk failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
  const after = serverPgid === undefined ? 0 : groupCpuTicks(serverPgid);
  const coreAfter = coreTicks(serverCore);
  const result = parseWrk(output);
  const serverTicks = after - before;
  const coreTotal = coreAfter.total - coreBefore.total;
  return {
    ...result,
    cpuUsPerRequest: result.requests > 0 ? (serverTicks * 1e6) / CLOCK_TICKS_PER_SECOND / result.requests : NaN,
    serverShare: serverTicks / coreTotal,
    othersShare: Math.max(0, coreAfter.busy - coreBefore.busy - serverTicks) / coreTotal,
  };
}
