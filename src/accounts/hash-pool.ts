import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * Where argon2 runs: a few worker threads at a lower scheduling priority.
 *
 * Hashing is deliberately expensive (~15 ms of CPU). On libuv's pool it
 * would compete with the event loop as an equal, and a burst of password
 * grants on a busy core would take most of the CPU from protected calls,
 * which are what a gateway is for. Linux keeps the nice value per thread,
 * so each worker lowers only its own: the kernel then gives the event loop
 * ~90% of a contended core, and hashing every cycle the loop leaves idle.
 *
 * Jobs wait in one queue. The queue is bounded: past it, a request is
 * refused at once with 503 and Retry-After rather than waiting behind
 * seconds of hashing until the client gives up.
 */
export interface HashPoolOptions {
  /** Worker threads, i.e. hashes running at once. */
  threads: number;
  /** Jobs allowed to wait for a thread; beyond this a job is refused with 503. */
  maxWaiting: number;
  /** The nice value of the hashing threads (0 normal, 19 lowest). */
  niceness: number;
}

export type HashJob =
  | { readonly op: 'hash'; readonly secret: string; readonly options: { memoryCost: number; timeCost: number; parallelism: number } }
  | { readonly op: 'verify'; readonly hash: string; readonly secret: string };

type JobResult = { readonly ok: true; readonly value: string | boolean } | { readonly ok: false; readonly error: string };

interface Queued {
  readonly job: HashJob;
  readonly resolve: (value: string | boolean) => void;
  readonly reject: (error: Error) => void;
}

// The thread's code, as an ES module loaded from a data: URL, so the pool
// needs no separate file to locate (the same code runs from dist/ and, under
// the tests, from src/). Why a data: URL and not `eval: true`: an eval'd
// worker is read the way `node -e` is, so a program started as
// `node --input-type=module -e ...` that embeds the gateway turned CommonJS
// source into a module without `require`, and every hash failed. A data: URL
// is always an ES module, whatever the flags. The worker keeps node's default
// of inheriting the process's flags: passing `execArgv` explicitly is
// validated, and V8 flags are refused there: those every shipped launch
// carries (cli/node-flags.ts) and any an operator adds, such as
// `--max-semi-space-size`.
const WORKER_SOURCE = `
import { parentPort, workerData } from 'node:worker_threads';
import { setPriority } from 'node:os';
import { createRequire } from 'node:module';
const argon2 = createRequire(workerData.argon2)(workerData.argon2);
try { setPriority(workerData.niceness); } catch {}
parentPort.on('message', (job) => {
  try {
    const value = job.op === 'hash'
      ? argon2.hashSync(job.secret, { algorithm: argon2.Algorithm.Argon2id, ...job.options })
      : argon2.verifySync(job.hash, job.secret);
    parentPort.postMessage({ ok: true, value });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: String(error && error.message || error) });
  }
});
`;

const WORKER_URL = new URL(`data:text/javascript,${encodeURIComponent(WORKER_SOURCE)}`);

const ARGON2_MODULE = createRequire(import.meta.url).resolve('@node-rs/argon2');

/** One thread, one job at a time. */
class HashThread {
  private readonly worker: Worker;
  private current: Queued | undefined;

  constructor(niceness: number, private readonly onIdle: (thread: HashThread) => void, onExit: (thread: HashThread) => void) {
    this.worker = new Worker(WORKER_URL, { workerData: { argon2: ARGON2_MODULE, niceness } });
    // Idle threads never keep a process (the CLI, a test run) alive.
    this.worker.unref();
    this.worker.on('message', (result: JobResult) => this.finish(result));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', () => {
      // Not a wrong password: the client may retry, and the attempt does not count against the account.
      this.fail(new GatewayError('SERVICE_UNAVAILABLE', { detail: 'hashing thread exited', headers: { 'Retry-After': '1' } }));
      onExit(this);
    });
  }

  run(queued: Queued): void {
    this.current = queued;
    this.worker.ref();
    this.worker.postMessage(queued.job);
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }

  private finish(result: JobResult): void {
    const queued = this.current;
    this.current = undefined;
    this.worker.unref();
    if (queued) {
      if (result.ok) queued.resolve(result.value);
      else queued.reject(new Error(result.error));
    }
    this.onIdle(this);
  }

  private fail(error: Error): void {
    const queued = this.current;
    this.current = undefined;
    queued?.reject(error);
  }
}

export class HashPool {
  private readonly threads = new Set<HashThread>();
  private readonly idle: HashThread[] = [];
  private readonly waiting: Queued[] = [];
  private closed = false;

  constructor(private readonly options: HashPoolOptions) {}

  run(job: HashJob): Promise<string | boolean> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error('hash pool closed'));
      const queued = { job, resolve, reject };
      const thread = this.idle.pop() ?? this.startThread();
      if (thread) return thread.run(queued);
      if (this.waiting.length >= this.options.maxWaiting) {
        return reject(new GatewayError('SERVICE_UNAVAILABLE', { detail: 'password hashing saturated', headers: { 'Retry-After': '1' } }));
      }
      this.waiting.push(queued);
    });
  }

  /** Stops every thread; jobs waiting or running are refused, and so is every later job. */
  async close(): Promise<void> {
    this.closed = true;
    for (const queued of this.waiting.splice(0)) queued.reject(new Error('hash pool closed'));
    this.idle.length = 0;
    await Promise.all([...this.threads].map((thread) => thread.terminate()));
  }

  private startThread(): HashThread | undefined {
    if (this.threads.size >= this.options.threads) return undefined;
    const thread = new HashThread(
      this.options.niceness,
      (thread) => this.handOver(thread),
      (thread) => this.forget(thread),
    );
    this.threads.add(thread);
    return thread;
  }

  private handOver(thread: HashThread): void {
    const next = this.waiting.shift();
    if (next) thread.run(next);
    else this.idle.push(thread);
  }

  /** A thread that died is replaced on the next job; a job waiting meanwhile gets a fresh thread now. */
  private forget(thread: HashThread): void {
    this.threads.delete(thread);
    const index = this.idle.indexOf(thread);
    if (index >= 0) this.idle.splice(index, 1);
    if (this.closed) return;
    const next = this.waiting.shift();
    if (next) this.startThread()?.run(next);
  }
}
