import { spawn } from 'node:child_process';
import { open, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { GatewayProcess } from '../helpers/gateway-process.js';

/*
 * bench/gateway-process.mjs is what protected-call.mjs runs as its gateway rows; its gc file is how that benchmark
 * tells a process slowed by its collector from one slowed by the VM. Kept working here, so that a change to it fails
 * `npm test` rather than a 16-minute benchmark. A one-megabyte semi-space makes scavenges come within a few hundred
 * requests. Speed is not asserted.
 */

const SCRIPT = resolve('bench/gateway-process.mjs');
let gateway: GatewayProcess | undefined;
afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
});

interface GcTotals {
  scavenges: number;
  scavengeMs: number;
  majors: number;
  majorMs: number;
}

/** The bench program on a default gateway.yaml, keeping its gc file beside it. */
async function startBenchGateway(): Promise<{ url: string; gcFile: string }> {
  let gcFile = '';
  gateway = await GatewayProcess.start({}, {}, [process.execPath, '--max-semi-space-size=1', SCRIPT], (configFile) => {
    gcFile = join(dirname(configFile), 'gc.json');
    return [configFile, 'default', gcFile];
  });
  return { url: gateway.url, gcFile };
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
