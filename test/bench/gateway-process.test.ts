import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { accountsYaml } from '../helpers/accounts.js';
import { eventually } from '../helpers/eventually.js';
import { TEST_KEK } from '../helpers/gateway-process.js';

/*
 * bench/gateway-process.mjs is what protected-call.mjs runs as its gateway rows; its gc file is how that benchmark
 * tells a process slowed by its collector from one slowed by the VM. Kept working here, so that a change to it fails
 * `npm test` rather than a 16-minute benchmark. A one-megabyte semi-space makes scavenges come within a few hundred
 * requests. Speed is not asserted.
 */

const SCRIPT = resolve('bench/gateway-process.mjs');
let child: ChildProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

interface GcTotals {
  scavenges: number;
  scavengeMs: number;
  majors: number;
  majorMs: number;
}

async function startBenchGateway(): Promise<{ url: string; gcFile: string }> {
  dir = await mkdtemp(join(tmpdir(), 'token-gateway-bench-gc-'));
  await writeFile(join(dir, 'accounts.yaml'), await accountsYaml());
  const config = join(dir, 'gateway.yaml');
  await writeFile(config, stringify({ listen: { host: '127.0.0.1', port: 0 }, admin: { port: 0 }, accounts: './accounts.yaml' }));
  const gcFile = join(dir, 'gc.json');
  const started = spawn(process.execPath, ['--max-semi-space-size=1', SCRIPT, config, 'default', gcFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TOKEN_GATEWAY_KEY_ENCRYPTION_KEY: TEST_KEK },
  });
  child = started;
  let stdout = '';
  let stderr = '';
  started.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    started.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const listening = /"msg":"token-gateway listening".*?"url":"([^"]+)"/.exec(stdout) ?? /"url":"([^"]+)".*?"msg":"token-gateway listening"/.exec(stdout);
      if (listening) resolveUrl(listening[1] as string);
    });
    started.once('exit', (code) => reject(new Error(`gateway-process.mjs exited (${code}): ${stderr}`)));
  });
  return { url, gcFile };
}

const totalsOf = async (file: string): Promise<GcTotals> => JSON.parse(await readFile(file, 'utf8')) as GcTotals;

describe('bench/gateway-process.mjs', () => {
  it('keeps its garbage collections in the gc file it is given, counted up while it serves', async () => {
    const { url, gcFile } = await startBenchGateway();
    const before = await eventually(() => totalsOf(gcFile).catch(() => undefined));
    expect(Object.keys(before).sort()).toEqual(['majorMs', 'majors', 'scavengeMs', 'scavenges']);

    // Held open, so that its inode number cannot be given to a later file before the check below.
    const held = await open(gcFile);
    const fileBefore = await held.stat();
    for (let i = 0; i < 400; i++) {
      const response = await fetch(`${url}/.well-known/openid-configuration`);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }

    const after = await eventually(async () => {
      const totals = await totalsOf(gcFile);
      return totals.scavenges > before.scavenges ? totals : undefined;
    });
    expect(after.scavengeMs).toBeGreaterThan(before.scavengeMs);
    // Rewritten by a rename over it, never truncated in place: the benchmark reads it while it changes, and a
    // truncate-then-write once gave a run an empty file.
    expect((await stat(gcFile)).ino).not.toBe(fileBefore.ino);
    await held.close();
    expect(after.majors).toBeGreaterThanOrEqual(before.majors);
  });

  it('refuses to start without a gateway.yaml, saying how it is run', async () => {
    const run = spawn(process.execPath, [SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    run.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => run.once('exit', done));
    expect(code).toBe(2);
    expect(stderr).toContain('usage: node bench/gateway-process.mjs <gateway.yaml> [engine] [gc-file]');
  });
});
