import { ReplyError } from 'ioredis';
import type { Logger } from '../../log/logger.js';

/** A store call that found no answer within its deadline. */
export class DeadlineExceeded extends Error {
  constructor(readonly ms: number) {
    super(`redis command timed out after ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * `operation` or a DeadlineExceeded after `ms`, whichever comes first. The
 * operation itself goes on (ioredis may be retrying it underneath); its
 * caller has stopped waiting.
 */
export function withDeadline<T>(operation: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineExceeded(ms)), ms);
    operation.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Redis replies that mean "not now" rather than "never": the node or the cluster cannot serve this slot at the moment. */
const TRANSIENT_REPLY = /^(CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|READONLY|NOREPLICAS|BUSY )/;

/**
 * Whether a failed call says Redis (or the node holding the key) is out of
 * reach, rather than that the call itself was wrong: a deadline, a closed
 * or unwritable connection, too many cluster redirections, or a reply such
 * as CLUSTERDOWN. A script error or a programming error is not an outage.
 */
export function isOutage(error: unknown): boolean {
  if (error instanceof DeadlineExceeded) return true;
  if (error instanceof ReplyError) return TRANSIENT_REPLY.test((error as Error).message);
  return !(error instanceof TypeError || error instanceof SyntaxError || error instanceof RangeError);
}

export interface AvailabilityOptions {
  /** Resolves when every node the store needs answers again; rejects (bounded by its own deadline) otherwise. */
  probe: () => Promise<void>;
  /** Between two probes while Redis is away. */
  probeIntervalMs: number;
  /** Redis answers again: reconcile (write back what it may have lost, reload the mirrors). */
  onRestored: (lostFor: string) => void;
  logger: Logger;
}

/**
 * Whether this instance can reach every Redis node it writes to, as far as
 * it can tell. One failed call (a deadline passed, a connection dropped, a
 * cluster node lost) closes it: from then on every store call is refused
 * at once with 503, and rate-limit counters use their in-memory insurance,
 * instead of each waiting for its own timeout while ioredis retries behind
 * it. A probe runs every `probeIntervalMs` until every node answers, then
 * it opens again and the store reconciles.
 */
export class Availability {
  private lostReason: string | undefined;
  private lostAt = 0;
  private probing = false;
  private closed = false;

  constructor(private readonly options: AvailabilityOptions) {}

  get open(): boolean {
    return this.lostReason === undefined;
  }

  /** Why the store refuses calls now; undefined while open. */
  get reason(): string | undefined {
    return this.lostReason;
  }

  lost(reason: string): void {
    if (this.closed) return;
    if (this.lostReason === undefined) {
      this.lostReason = reason;
      this.lostAt = Date.now();
      this.options.logger.warn({ reason }, 'redis out of reach: writes answer 503 at once until every node answers again');
    }
    if (!this.probing) void this.probeUntilBack();
  }

  close(): void {
    this.closed = true;
  }

  private async probeUntilBack(): Promise<void> {
    this.probing = true;
    try {
      while (!this.closed && this.lostReason !== undefined) {
        try {
          await this.options.probe();
          const lostFor = `${Date.now() - this.lostAt} ms`;
          this.lostReason = undefined;
          this.options.logger.info({ lostFor }, 'redis answers again');
          this.options.onRestored(lostFor);
        } catch {
          await new Promise((resolve) => setTimeout(resolve, this.options.probeIntervalMs).unref());
        }
      }
    } finally {
      this.probing = false;
    }
  }
}
