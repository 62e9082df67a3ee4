import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { WindowCounter } from '../types.js';
import type { RedisClient } from './connection.js';

/** How a counter's Redis work is let through: refused at once while Redis is known away, the rest bounded by one deadline. */
export type Gate = <T>(operation: () => Promise<T>) => Promise<T>;

/** rate-limiter-flexible's store calls: every Redis command a counter sends goes through one of these. */
interface StoreCalls {
  _upsert(...args: unknown[]): Promise<unknown>;
  _get(...args: unknown[]): Promise<unknown>;
  _delete(...args: unknown[]): Promise<unknown>;
}

export interface CounterSettings {
  readonly client: RedisClient;
  readonly keyPrefix: string;
  readonly points: number;
  readonly durationSeconds: number;
}

/**
 * rate-limiter-flexible's Redis limiter with its store calls behind the
 * store's gate. A refused or late call falls to the in-memory insurance
 * limiter at once, as any Redis error does, so that a request counting
 * during an outage does not first wait for ioredis to give up (which, on a
 * Redis Cluster that lost a master, is the whole command timeout per call).
 */
export function gatedRateLimiter({ client, keyPrefix, points, durationSeconds }: CounterSettings, gate: Gate): RateLimiterAbstract {
  const limiter = new RateLimiterRedis({
    storeClient: client,
    keyPrefix,
    points,
    duration: durationSeconds,
    insuranceLimiter: new RateLimiterMemory({ points, duration: durationSeconds }),
  });
  const calls = limiter as unknown as StoreCalls;
  for (const name of ['_upsert', '_get', '_delete'] as const) {
    const call = calls[name].bind(limiter);
    calls[name] = (...args: unknown[]) => gate(() => call(...args));
  }
  return limiter;
}

/**
 * Spike arrest's window counts on a rate limiter: one key per caller and
 * window (`caller:window`), which expires after the limiter's duration.
 * Instances on the same Redis count together; while it is away, each counts
 * on its own through the insurance limiter.
 */
export function windowCounterOf(limiter: RateLimiterAbstract): WindowCounter {
  return { admit: (key, window) => limiter.consume(`${key}:${window}`).then(admitted, refusedOrFailed) };
}

const admitted = (): boolean => true;

/** rate-limiter-flexible rejects with its result when the points are spent, and with an Error when counting failed. */
function refusedOrFailed(outcome: unknown): false {
  if (outcome instanceof RateLimiterRes) return false;
  throw outcome;
}
