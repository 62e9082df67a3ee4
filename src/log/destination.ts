import { fstatSync } from 'node:fs';
import { pino } from 'pino';

/**
 * Standard output as the log's destination: lines are gathered in memory and
 * written in batches of 64 KiB, so a busy gateway makes a write call per
 * batch, not per line. A regular file is written from the event loop (a page
 * cache write does not wait for a reader, and the thread pool's round trip
 * cost more); anything else (a pipe, a terminal) by the thread pool, so a
 * reader that is slow for a moment never holds a request up.
 *
 * Decisions (bench/README.md has the figures):
 *
 * - The lines of a batch are appended to one string and encoded once, when
 *   the batch is handed over, every ten lines or so: a Buffer per line cost
 *   an allocation, and an object that lived as long as its batch, on every
 *   protected call. Encoding each line into a buffer as it came kept nothing
 *   alive but cost more CPU per line; a longer string batch kept more alive
 *   at each scavenge and lengthened the tail (docs/performance.md, "A tenth
 *   VM"; bench/README.md, "A third of the string per batch").
 * - sonic-boom (pino's own destination, from `pino.destination`) does the
 *   writing: the queue behind a write in progress, the retries on a full
 *   non-blocking pipe, the bound and the final synchronous flush. It runs in
 *   its `buffer` mode, one Buffer per batch: in its default `utf8` mode it
 *   re-measures its growing string on every write.
 * - **Bounded, drop and count.** A consumer that does not keep up (a pipe
 *   whose reader stalls, a disk that blocks) gets at most `MAX_PENDING_BYTES`
 *   held for it; batches past that are dropped, their lines counted
 *   (`token_gateway_log_lines_dropped_total`), and one warning line with the
 *   count is written right before the first batch the destination takes
 *   again, in the same write. Back-pressure would instead slow every request
 *   down to the speed of the log reader, which turns a slow log collector
 *   into an outage; nginx and HAProxy make the same choice for their access
 *   logs.
 * - Pending lines are written out synchronously when the process exits
 *   (after SIGTERM's drain too), and at the latest `FLUSH_EVERY_MS` after
 *   they were logged while the gateway is quiet.
 */
export interface LogDestination {
  write(line: string): void;
  /** Lines dropped since the start because the consumer did not keep up. */
  readonly dropped: number;
  /** Writes everything pending now, synchronously. */
  flushSync(): void;
  /**
   * Resolves once everything logged so far has been written, or after
   * `timeoutMs`: for a graceful stop, before the exit's synchronous flush. A
   * write already under way to a pipe is finished first, which the
   * synchronous flush cannot do (it would write what follows ahead of it, or
   * lose it at exit).
   */
  drained(timeoutMs: number): Promise<void>;
}

/** Up to 4 MiB waits for a slow consumer (about 16,000 access lines); past that, lines are dropped and counted. */
export const MAX_PENDING_BYTES = 4 * 1024 * 1024;
// Batches of 64 KiB, and lines at most 100 ms old when the gateway is quiet.
const FLUSH_AT_BYTES = 64 * 1024;
const MAX_WRITE_BYTES = 256 * 1024;
const FLUSH_EVERY_MS = 100;

export interface DestinationOptions {
  /** A file descriptor (standard output by default). */
  readonly fd?: number;
  readonly maxPendingBytes?: number;
}

/** A batched, bounded destination on a file descriptor; see the module comment. */
export function createLogDestination({ fd = 1, maxPendingBytes = MAX_PENDING_BYTES }: DestinationOptions = {}): LogDestination {
  const sync = isRegularFile(fd);
  // A batch is a quarter of the bound at most, so a full batch is refused only when a consumer is really behind.
  const batchBytes = Math.min(FLUSH_AT_BYTES, Math.floor(maxPendingBytes / 4));
  // The string batch is handed over at a 24th of that many UTF-16 units (at most 3 bytes each in UTF-8), less room
  // for the dropped-lines warning that may go before it: about 2,700 units, some ten access lines. A string batch
  // keeps its lines alive until it is encoded, and a scavenge copies what is alive, with V8's helper threads that the
  // event loop waits for on one core: handed over at a third (about 75 lines), the gateway's p99.9 was higher in 7
  // of 8 comparisons of three A/B runs, for about 1 µs less CPU per call (docs/performance.md, "A tenth VM"). Under
  // 4 KiB, the encoded batch is a slice of node's shared buffer pool. sonic-boom still gathers 64 KiB before it
  // writes (minLength), so a busy gateway still makes one write call per 64 KiB.
  const warningRoom = Buffer.byteLength(droppedWarning(Number.MAX_SAFE_INTEGER));
  const batchChars = Math.max(1, Math.floor((batchBytes - warningRoom) / 3 / 8));
  // sonic-boom starts a write once it holds a whole batch's worth of bytes (minLength). A batch handed over at exit
  // stays in its buffer until flushSync() writes it: at exit that write is synchronous and retried on a full pipe,
  // which an asynchronous write started at exit would not be.
  const sonic = pino.destination({ dest: fd, sync, minLength: batchBytes, maxWrite: MAX_WRITE_BYTES, maxLength: maxPendingBytes, contentMode: 'buffer' });
  // In buffer mode sonic-boom's write takes a Buffer; its type declares the utf8 mode's string only.
  const writeBytes = (bytes: Buffer): boolean => (sonic.write as unknown as (data: Buffer) => boolean).call(sonic, bytes);
  let dropped = 0;
  let unreported = 0;
  let refused = false;
  // A drop is reported synchronously, during the write that could not be taken.
  sonic.on('drop', () => {
    refused = true;
  });
  // A reader that went away (EPIPE) or a full disk: the gateway goes on serving; nothing is retried.
  sonic.on('error', () => undefined);
  /** Whether the destination took the bytes. */
  const accepted = (bytes: Buffer): boolean => {
    refused = false;
    writeBytes(bytes);
    return !refused;
  };
  // The lines since the last hand-over, as one string: appending is cheap, and the batch is encoded once.
  let batch = '';
  let batchLines = 0;
  // Timer ticks left that ask sonic-boom to write what it holds: the hand-over's own and the next. A flush while a
  // write is under way does nothing, and what that write leaves behind (less than minLength) would wait for the next
  // line; a write that takes longer than two ticks still leaves it waiting.
  let flushTicks = 0;
  const handOver = (): void => {
    if (batchLines === 0) return;
    const text = batch;
    const lines = batchLines;
    batch = '';
    batchLines = 0;
    // After a gap the warning goes first, in one write with the batch behind it: both are taken or neither. Written
    // on its own, a warning fitted in the room a batch did not, and a stalled consumer's backlog filled up with
    // warnings counting a few lines each. The warning is not one of the log's lines.
    const bytes = Buffer.from(unreported === 0 ? text : droppedWarning(unreported) + text);
    if (accepted(bytes)) {
      unreported = 0;
    } else {
      dropped += lines;
      unreported += lines;
    }
    flushTicks = 2;
  };
  const write = (line: string): void => {
    batch += line;
    batchLines++;
    if (batch.length >= batchChars) handOver();
  };
  const flush = () => {
    handOver();
    if (flushTicks === 0) return;
    flushTicks--;
    try {
      sonic.flush();
    } catch {
      // flush() throws once the destination is destroyed; nothing is written after that.
    }
  };
  setInterval(flush, FLUSH_EVERY_MS).unref();
  const writeHeldSync = () => {
    try {
      sonic.flushSync();
    } catch {
      // A reader gone, or a destination already destroyed: what is left cannot be written. (A full pipe is retried.)
    }
  };
  const flushSync = () => {
    // What sonic-boom holds is written first, so that the last batch (and a warning before it) stays under minLength
    // and is written here, synchronously, not by an asynchronous write that an exit would cut short. A write already
    // under way to a pipe cannot be waited for here; drained() is the graceful stop's.
    writeHeldSync();
    handOver();
    writeHeldSync();
  };
  const drained = (timeoutMs: number): Promise<void> => {
    if (sync) {
      flushSync();
      return Promise.resolve();
    }
    handOver();
    return new Promise((resolve) => {
      const giveUp = setTimeout(resolve, timeoutMs);
      const done = () => {
        clearTimeout(giveUp);
        resolve();
      };
      try {
        // Called once sonic-boom has written all it holds (or failed: a reader gone).
        sonic.flush(done);
      } catch {
        done();
      }
    });
  };
  process.once('exit', flushSync);
  return {
    write,
    get dropped() {
      return dropped;
    },
    flushSync,
    drained,
  };
}

/** A regular file never blocks for long: written in the event loop, without a thread pool round trip per batch. */
function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/** The warning that replaces what was dropped: pino's shape, so log readers parse it like any other line. */
function droppedWarning(count: number): string {
  return `${JSON.stringify({ level: 40, time: new Date().toISOString(), service: 'token-gateway', pid: process.pid, dropped: count, msg: 'log lines dropped: standard output did not keep up' })}\n`;
}

let standard: LogDestination | undefined;

/** The process's standard output: one destination however many gateways the process runs (tests run several). */
export function standardOutput(): LogDestination {
  return (standard ??= createLogDestination());
}

/** For a graceful stop: standard output's pending lines written, within `timeoutMs` (at once when nothing was logged there). */
export const standardOutputDrained = (timeoutMs: number): Promise<void> => standard?.drained(timeoutMs) ?? Promise.resolve();

/** Log lines this process dropped (0 while nothing logged to standard output): read at scrape time. */
export const droppedLogLines = (): number => standard?.dropped ?? 0;
