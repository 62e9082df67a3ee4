#!/usr/bin/env node
// Runs first in `npm test` (the pretest script): says which prerequisite is
// missing, one line each, and exits non-zero before anything is built or any
// test runs, instead of letting the first Redis test fail with ENOENT.
// Plain JavaScript and no dependency: it must work on a Node too old for the
// rest, and before `npm ci` has finished.
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The binaries the tests start, and the Debian package that brings each. */
export const BINARIES = [
  { name: 'redis-server', why: 'the Redis tests start their own servers', debian: 'redis-server' },
  { name: 'redis-cli', why: 'the Redis Cluster tests join servers with it', debian: 'redis-tools' },
  { name: 'openssl', why: 'the TLS tests make throw-away certificates', debian: 'openssl' },
  { name: 'valgrind', why: 'the instruction-count benchmark\'s test runs servers under callgrind', debian: 'valgrind' },
  { name: 'callgrind_control', why: 'the instruction-count benchmark\'s test switches callgrind\'s counting on and off', debian: 'valgrind' },
];

/**
 * The browser the operations page test drives headless through playwright-core, which downloads none: Debian's
 * chromium at its own path, or the one CHROMIUM_PATH names.
 */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';
export const chromiumPath = (env = process.env) => env.CHROMIUM_PATH || DEFAULT_CHROMIUM;

/** package.json's engines.node, e.g. ">=20.18.1": the one place the minimum is written. */
export function minimumNode() {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const match = /^>=\s*(\d+\.\d+\.\d+)$/.exec(manifest.engines?.node ?? '');
  if (!match) throw new Error(`package.json engines.node should read ">=X.Y.Z", not ${JSON.stringify(manifest.engines?.node)}`);
  return match[1];
}

function atLeast(version, minimum) {
  const [a, b] = [version.replace(/^v/, '').split('.').map(Number), minimum.split('.').map(Number)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name, path) {
  return (path ?? '').split(delimiter).some((folder) => {
    if (!folder) return false;
    try {
      accessSync(join(folder, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** One line per missing prerequisite; empty when `npm test` can run. */
export function missingPrerequisites({ nodeVersion = process.version, path = process.env.PATH, chromium = chromiumPath() } = {}) {
  const problems = [];
  const minimum = minimumNode();
  if (!atLeast(nodeVersion, minimum)) {
    problems.push(`npm test needs Node >= ${minimum} (package.json engines), and this is ${nodeVersion}: install Node 20 LTS or later`);
  }
  for (const binary of BINARIES) {
    if (!onPath(binary.name, path)) {
      problems.push(`npm test needs ${binary.name} on PATH, ${binary.why} (Debian: apt-get install ${binary.debian}); .ci/run installs it`);
    }
  }
  if (!executable(chromium)) {
    problems.push(
      `npm test needs chromium at ${chromium}, the operations page test drives it headless (Debian: apt-get install chromium, or set CHROMIUM_PATH); .ci/run installs it`,
    );
  }
  return problems;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const problems = missingPrerequisites();
  for (const problem of problems) console.error(problem);
  process.exitCode = problems.length > 0 ? 1 : 0;
}
