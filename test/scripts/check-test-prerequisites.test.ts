import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BINARIES, chromiumPath, minimumNode, missingPrerequisites } from '../../scripts/check-test-prerequisites.mjs';

const SCRIPT = resolve('scripts/check-test-prerequisites.mjs');
const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

/** A PATH of one folder holding links to the real binaries, less `without`. */
function pathWithout(without: string | undefined): string {
  const folder = mkdtempSync(join(tmpdir(), 'token-gateway-path-'));
  folders.push(folder);
  for (const { name } of BINARIES) {
    if (name === without) continue;
    const real = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
    symlinkSync(real, join(folder, name));
  }
  return folder;
}

/** Runs the checker as `npm test` does (its pretest step), with `path` as PATH. */
// CHROMIUM_PATH names a file that is there (node itself), so that only what a test takes away is missing.
const check = (path: string, chromium = process.execPath) => spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8', env: { ...process.env, PATH: path, CHROMIUM_PATH: chromium } });

describe('scripts/check-test-prerequisites.mjs (the first step of npm test)', () => {
  it('says nothing and exits 0 when every prerequisite is there', () => {
    expect(check(pathWithout(undefined))).toMatchObject({ status: 0, stderr: '' });
  });

  it.each([
    ['redis-server', 'npm test needs redis-server on PATH, the Redis tests start their own servers (Debian: apt-get install redis-server); .ci/run installs it'],
    ['redis-cli', 'npm test needs redis-cli on PATH, the Redis Cluster tests join servers with it (Debian: apt-get install redis-tools); .ci/run installs it'],
    ['openssl', 'npm test needs openssl on PATH, the TLS tests make throw-away certificates (Debian: apt-get install openssl); .ci/run installs it'],
    ['valgrind', "npm test needs valgrind on PATH, the instruction-count benchmark's test runs servers under callgrind (Debian: apt-get install valgrind); .ci/run installs it"],
    ['callgrind_control', "npm test needs callgrind_control on PATH, the instruction-count benchmark's test switches callgrind's counting on and off (Debian: apt-get install valgrind); .ci/run installs it"],
  ])('exits 1 naming %s and how to install it when PATH lacks it', (binary, line) => {
    const outcome = check(pathWithout(binary));
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toBe(`${line}\n`);
  });

  it('exits 1 naming chromium, where it is looked for and how to install it, when it is not there', () => {
    const outcome = check(pathWithout(undefined), join(tmpdir(), 'no-such-folder', 'chromium'));
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toBe(
      `npm test needs chromium at ${join(tmpdir(), 'no-such-folder', 'chromium')}, the operations page test drives it headless (Debian: apt-get install chromium, or set CHROMIUM_PATH); .ci/run installs it\n`,
    );
  });

  it("looks for Debian's chromium unless CHROMIUM_PATH says otherwise", () => {
    expect(chromiumPath({})).toBe('/usr/bin/chromium');
    expect(chromiumPath({ CHROMIUM_PATH: '/opt/chromium/chrome' })).toBe('/opt/chromium/chrome');
  });

  it('names every missing binary at once', () => {
    const outcome = check(join(tmpdir(), 'no-such-folder'));
    expect(outcome.status).toBe(1);
    expect(outcome.stderr.trim().split('\n').map((line) => line.split(' ')[3])).toEqual(['redis-server', 'redis-cli', 'openssl', 'valgrind', 'callgrind_control']);
  });

  it('takes the minimum Node from package.json engines', () => {
    expect(minimumNode()).toBe('20.18.1');
  });

  it.each([
    ['v20.18.0', false],
    ['v18.20.4', false],
    ['v20.18.1', true],
    ['v20.19.0', true],
    ['v22.1.0', true],
  ])('on Node %s, ok: %s', (nodeVersion, ok) => {
    const problems = missingPrerequisites({ nodeVersion, path: pathWithout(undefined), chromium: process.execPath });
    expect(problems).toEqual(ok ? [] : [`npm test needs Node >= 20.18.1 (package.json engines), and this is ${nodeVersion}: install Node 20 LTS or later`]);
  });
});
