import { execFileSync, spawn } from 'node:child_process';
import { openSync, closeSync, constants as fsConstants, readFileSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayProcess } from '../helpers/gateway-process.js';

/*
 * The log destination in a process of its own, on a real file and a real
 * pipe: what reaches the consumer, in what order, at exit, and what happens
 * when the consumer stops reading.
 */

const DESTINATION = pathToFileURL(resolve('dist/log/destination.js')).href;

/**
 * Runs `body` (an ES module's text, with `createLogDestination` imported) with stdout as given. `pausedUntil`: the
 * piped stdout is read only once the child says so on stderr (and it hears "go" on stdin); `onSaid`: called once the
 * child has said its text on stderr.
 */
function runChild(body: string, stdout: 'pipe' | number, options: { pausedUntil?: string; onSaid?: { text: string; then: () => void } } = {}) {
  const script = `import { createLogDestination } from ${JSON.stringify(DESTINATION)};\n${body}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', stdout, 'pipe'] });
  const { stdin, stderr } = child as typeof child & { stdin: NonNullable<typeof child.stdin>; stderr: NonNullable<typeof child.stderr> };
  const out: Buffer[] = [];
  let err = '';
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    // The consumer starts reading once the child says it has written its burst.
    if (options.pausedUntil && err.includes(options.pausedUntil)) {
      child.stdout?.resume();
      stdin.write('go\n');
    }
    if (options.onSaid && err.includes(options.onSaid.text)) options.onSaid.then();
  });
  if (child.stdout) {
    // Decoded once at the end: a chunk can end inside a multi-byte character.
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    if (options.pausedUntil) child.stdout.pause();
  }
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolveRun) =>
    child.once('close', (code) => resolveRun({ code, stdout: Buffer.concat(out).toString(), stderr: err })),
  );
  return done;
}

const numbersIn = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((entry) => JSON.parse(entry) as { n?: number; dropped?: number; msg: string });

/** A child script's opening: a destination on a piped standard output, and numbered lines of about 200 bytes. */
const PIPED_LINES = `
  process.stdout; // as the CLI does: a pipe on standard output becomes non-blocking
  const d = createLogDestination();
  const line = (i) => JSON.stringify({ n: i, msg: 'request', pad: 'x'.repeat(170) }) + '\\n';`;

/**
 * A real FIFO (64 KiB in the kernel) in `dir` whose reader holds off until `read()`: the write end is for the child's
 * standard output (close it here once the child has it), `lines()` what the reader got until the writer closed.
 */
function fifoWithIdleReader(dir: string, name: string) {
  const fifo = join(dir, name);
  execFileSync('mkfifo', [fifo]);
  const readFd = openSync(fifo, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  const writeFd = openSync(fifo, fsConstants.O_WRONLY);
  const reader = new Socket({ fd: readFd, readable: true, writable: false });
  reader.pause();
  let out = '';
  reader.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const ended = new Promise<void>((resolveEnd) => reader.once('end', () => resolveEnd()));
  const read = () => void reader.resume();
  return {
    read,
    /**
     * Runs a child logging into the FIFO (this process's write end closed once the child holds its own), then reads
     * to the end and parses what came. `onSaid`: when the child says `text` on stderr, `then` runs (`read` starts the
     * reader).
     */
    async logFrom(body: string, onSaid: { text: string; then: () => void }) {
      const run = runChild(body, writeFd, { onSaid });
      closeSync(writeFd);
      const { code } = await run;
      read();
      await ended;
      return { code, written: numbersIn(out) };
    },
  };
}

describe('log destination', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-log-destination-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes every line to a regular file, in order, when the process exits right after logging', async () => {
    const file = join(dir, 'access.log');
    const fd = openSync(file, 'w');
    const run = await runChild(
      `const d = createLogDestination(); for (let i = 0; i < 20000; i++) d.write(JSON.stringify({ n: i, msg: 'request', pad: 'x'.repeat(150) }) + '\\n'); process.exit(0);`,
      fd,
    );
    closeSync(fd);
    expect(run.code).toBe(0);
    const written = numbersIn(readFileSync(file, 'utf8'));
    expect(written).toHaveLength(20000);
    expect(written.every((entry, i) => entry.n === i)).toBe(true);
  });

  describe('writes lines of any size and script byte for byte, in order', () => {
    // Characters of 1 to 4 bytes in UTF-8, sizes that end batches at every offset, lines of about 10,000 characters
    // that fit a batch only after a hand-over, and lines of 25,000 that are larger than a batch.
    const pieces = ['a', 'é', '€', '😀'];
    const sizeOf = (i: number) => (i % 500 === 7 ? 25_000 : i % 250 === 100 ? 10_000 : (i * 37) % 300);
    const pieceOf = (i: number) => pieces[(i % 500 === 7 ? Math.floor(i / 500) : i) % 4] ?? '';
    const lines = Array.from({ length: 2000 }, (_, i) => `${JSON.stringify({ n: i, msg: 'request', pad: pieceOf(i).repeat(sizeOf(i)) })}\n`);
    let script = '';
    beforeAll(() => {
      const linesFile = join(dir, 'lines.json');
      writeFileSync(linesFile, JSON.stringify(lines));
      script = `const lines = JSON.parse((await import('node:fs')).readFileSync(${JSON.stringify(linesFile)}, 'utf8')); const d = createLogDestination(); for (const line of lines) d.write(line); process.exit(0);`;
    });

    it('to a regular file', async () => {
      const file = join(dir, 'mixed.log');
      const fd = openSync(file, 'w');
      const run = await runChild(script, fd);
      closeSync(fd);
      expect(run.code).toBe(0);
      expect(readFileSync(file).equals(Buffer.from(lines.join('')))).toBe(true);
    });

    it('to a pipe', async () => {
      const run = await runChild(script, 'pipe');
      expect(run.code).toBe(0);
      expect(run.stdout === lines.join('')).toBe(true);
    });
  });

  it('writes every pending line to a pipe when the process exits right after logging', async () => {
    const run = await runChild(`const d = createLogDestination(); for (let i = 0; i < 20000; i++) d.write(JSON.stringify({ n: i, msg: 'request' }) + '\\n'); process.exit(0);`, 'pipe');
    expect(run.code).toBe(0);
    const written = numbersIn(run.stdout);
    expect(written).toHaveLength(20000);
    expect(written.every((entry, i) => entry.n === i)).toBe(true);
  });

  it('writes the last lines at exit even when the reader of a pipe is behind', async () => {
    // A real FIFO (64 KiB in the kernel), its reader idle until the child is exiting: 50 KB go out on the 100 ms
    // timer, then 30 KB are logged and the process exits at once. The last lines must be written at exit, waiting for
    // the reader, not left to an asynchronous write the exit cuts short.
    const fifo = fifoWithIdleReader(dir, 'exit.fifo');
    const body = `${PIPED_LINES}
      for (let i = 0; i < 250; i++) d.write(line(i));
      await new Promise((next) => setTimeout(next, 400));
      for (let i = 250; i < 400; i++) d.write(line(i));
      process.stderr.write('written\\n');
      process.exit(0);`;
    // The reader starts once the child has logged everything and is exiting.
    const { code, written } = await fifo.logFrom(body, { text: 'written', then: fifo.read });
    expect(code).toBe(0);
    expect(written).toHaveLength(400);
    expect(written.every((entry, i) => entry.n === i)).toBe(true);
  });

  it('writes what came during a long write to a slow reader once that write is done, though no line follows', async () => {
    // A real FIFO whose reader starts 500 ms late: 100 KB of lines fill it and leave a write waiting; a few lines more
    // come meanwhile, fewer than a batch. Then the gateway is quiet and is killed (no exit flush): every line must
    // have gone out once the reader read, not waited for a next line that never came.
    const fifo = fifoWithIdleReader(dir, 'quiet.fifo');
    const body = `${PIPED_LINES}
      for (let i = 0; i < 500; i++) d.write(line(i));
      await new Promise((next) => setTimeout(next, 50));
      for (let i = 500; i < 510; i++) d.write(line(i));
      process.stderr.write('logged\\n');
      await new Promise((next) => setTimeout(next, 2000));
      process.kill(process.pid, 'SIGKILL');`;
    let late: NodeJS.Timeout | undefined;
    const { code, written } = await fifo.logFrom(body, { text: 'logged', then: () => (late ??= setTimeout(fifo.read, 500)) });
    expect(code).toBe(null); // killed: nothing was written at exit
    expect(written).toHaveLength(510);
    expect(written.every((entry, i) => entry.n === i)).toBe(true);
  });

  it('waits for a reader that is behind at most as long as asked (drained), and keeps every line for a drain once it reads', async () => {
    // As the gateway stops: drained with a bound, then the exit. Here the first wait gives up (nobody reads), the
    // reader resumes, and a second wait sees the batch under way through before the exit writes the rest.
    const body = `
      const d = createLogDestination();
      for (let i = 0; i < 2000; i++) d.write(JSON.stringify({ n: i, msg: 'request', pad: 'x'.repeat(150) }) + '\\n');
      const started = Date.now();
      await d.drained(300);
      process.stderr.write('drained after ' + (Date.now() - started) + ' ms\\n');
      await new Promise((next) => process.stdin.once('data', next));
      await d.drained(10000);
      process.exit(0);
    `;
    const run = await runChild(body, 'pipe', { pausedUntil: 'drained after' });
    expect(run.code).toBe(0);
    // Nobody read meanwhile: it gave up at its bound, neither at once nor never.
    const waited = Number(/drained after (\d+) ms/.exec(run.stderr)?.[1]);
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(3_000);
    const written = numbersIn(run.stdout);
    expect(written).toHaveLength(2000);
    expect(written.every((entry, i) => entry.n === i)).toBe(true);
  });

  it('drops nothing for a consumer that keeps reading, however small the bound', async () => {
    const run = await runChild(
      `const d = createLogDestination({ maxPendingBytes: 64 * 1024 }); for (let tick = 0; tick < 40; tick++) { for (let i = 0; i < 100; i++) d.write(JSON.stringify({ n: tick * 100 + i, msg: 'request', pad: 'x'.repeat(150) }) + '\\n'); await new Promise((next) => setTimeout(next, 5)); } d.flushSync(); process.stderr.write('dropped ' + d.dropped + '\\n'); process.exit(0);`,
      'pipe',
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('dropped 0');
    expect(numbersIn(run.stdout)).toHaveLength(4000);
  });

  it('drops and counts what a consumer that stopped reading cannot take, never blocks, and says how many once it reads again', async () => {
    // 64 KiB may wait (and the batch being gathered, a quarter of that: 16 KiB); 4,000 lines of about 200 bytes (800 KB) are
    // written while nobody reads the pipe (64 KiB of its own).
    const body = `
      const d = createLogDestination({ maxPendingBytes: 64 * 1024 });
      const line = (i) => JSON.stringify({ level: 30, n: i, msg: 'request', pad: 'x'.repeat(150) }) + '\\n';
      const started = Date.now();
      for (let tick = 0; tick < 40; tick++) {
        for (let i = 0; i < 100; i++) d.write(line(tick * 100 + i));
        await new Promise((next) => setImmediate(next));
      }
      process.stderr.write('burst written in ' + (Date.now() - started) + ' ms, dropped ' + d.dropped + '\\n');
      await new Promise((next) => process.stdin.once('data', next));
      await d.drained(5000);
      d.write(line(4000));
      await d.drained(5000);
      process.stderr.write('final dropped ' + d.dropped + '\\n');
      process.exit(0);
    `;
    const run = await runChild(body, 'pipe', { pausedUntil: 'burst written' });
    expect(run.code).toBe(0);
    const dropped = Number(/final dropped (\d+)/.exec(run.stderr)?.[1]);
    const burstMs = Number(/burst written in (\d+) ms/.exec(run.stderr)?.[1]);
    // The event loop went on: 40 turns with nobody reading took well under the time a blocked write would hang for ever.
    expect(burstMs).toBeLessThan(5_000);
    expect(dropped).toBeGreaterThan(0);
    const entries = numbersIn(run.stdout);
    const requests = entries.filter((entry) => entry.msg === 'request');
    const warnings = entries.filter((entry) => entry.dropped !== undefined);
    // Nothing is lost without being counted, nothing is duplicated, and the order is kept.
    expect(requests.length + dropped).toBe(4001);
    expect(requests.map((entry) => entry.n)).toEqual([...requests.map((entry) => entry.n)].sort((a, b) => (a ?? 0) - (b ?? 0)));
    // One warning each time lines go through again after some were dropped; together they count every drop.
    expect(warnings.length).toBeGreaterThan(0);
    for (const warning of warnings) expect(warning).toMatchObject({ level: 40, msg: 'log lines dropped: standard output did not keep up' });
    expect(warnings.reduce((sum, warning) => sum + (warning.dropped ?? 0), 0)).toBe(dropped);
    // A warning stands exactly where lines are missing, and counts that gap: never two in a row, never one written
    // while the consumer still takes nothing (it goes in with the batch after the gap, or not at all).
    let previous = -1;
    let reported = 0;
    for (const entry of entries) {
      if (entry.dropped !== undefined) {
        expect(reported, 'a warning right after another').toBe(0);
        reported = entry.dropped;
        continue;
      }
      expect(entry.n! - previous - 1, `the gap before line ${entry.n}`).toBe(reported);
      previous = entry.n!;
      reported = 0;
    }
    // The burst ended with drops: the warning comes right before the first lines written once the consumer reads
    // (the burst's last lines, still in the batch being gathered, then the one logged after it).
    const lastWarning = entries.lastIndexOf(warnings.at(-1)!);
    expect(entries[lastWarning + 1]).toMatchObject({ msg: 'request' });
    expect(entries.slice(lastWarning + 1).every((entry) => entry.msg === 'request')).toBe(true);
    expect(entries.at(-1)).toMatchObject({ n: 4000 });
  });

  it('a gateway stopped by SIGTERM right after answering has written the access line of every request', async () => {
    const gateway = await GatewayProcess.start({ log: { level: 'info' } });
    try {
      // About 75 KB of access lines, more than one batch: some are still in memory when the signal arrives.
      for (let i = 0; i < 300; i++) {
        const response = await fetch(`${gateway.url}/oauth2/v1/keys?n=${i}`);
        await response.arrayBuffer();
      }
      gateway.signal('SIGTERM');
      expect(await gateway.exit).toBe(0);
      await gateway.outputComplete;
      const accessLines = gateway.lines.filter((entry) => entry.msg === 'request' && entry.path === '/oauth2/v1/keys');
      expect(accessLines).toHaveLength(300);
      expect(gateway.lines.at(-1)).toMatchObject({ msg: expect.stringMatching(/stopped|shut/) });
    } finally {
      await gateway.stop();
    }
  });
});
