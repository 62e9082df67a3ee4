import { createHash } from 'node:crypto';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { GatewayConfig } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Store } from '../store/types.js';

type BruteForceSettings = GatewayConfig['brute_force'];

/** An attempt that has taken its place in the counters; settled once the password is checked. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
  failed(): Promise<void>;
  /** Neither: the check could not be made (a suspended account, the store away); the places are given back. */
  abandoned(): Promise<void>;
}

/**
 * Failed password attempts, counted per username and per client address in
 * the store (so every instance counts together). Reaching a threshold locks
 * that username or address for the cool-down: the token endpoint then answers
 * the spec's default 401 without verifying the password at all, so a locked
 * account reveals nothing about whether a guess was right.
 *
 * An attempt is counted *before* its password is hashed and given back if
 * the password was right: counting after would let a burst of parallel
 * guesses all be verified before the first failure is recorded.
 */
export class LoginThrottle {
  private readonly byUsername?: RateLimiterAbstract;
  private readonly byAddress?: RateLimiterAbstract;
  private readonly coolDownSeconds: number;

  constructor(store: Store, settings: BruteForceSettings) {
    const durationSeconds = Math.ceil(settings.window / 1000);
    this.coolDownSeconds = Math.ceil(settings.cool_down / 1000);
    const counter = (name: string, points: number) =>
      points > 0 ? store.createRateLimiter({ name: `login-failures:${name}`, points, durationSeconds }) : undefined;
    this.byUsername = counter('username', settings.max_failures_per_username);
    this.byAddress = counter('address', settings.max_failures_per_address);
  }

  /** Counts the attempt, or throws the spec's default 401 when the username or the address is locked. */
  async begin(username: string, address: string): Promise<LoginAttempt> {
    const userKey = usernameKey(username);
    const [user, client] = await Promise.all([reserve(this.byUsername, userKey), reserve(this.byAddress, address)]);
    if (!user.admitted || !client.admitted) {
      // A refused attempt gives its place back: only guesses that were verified count.
      await Promise.all([user.admitted && this.byUsername?.reward(userKey, 1), client.admitted && this.byAddress?.reward(address, 1)]);
      throw new GatewayError('LOGIN_LOCKED', { detail: user.admitted ? 'client address locked after repeated failed passwords' : 'username locked after repeated failed passwords' });
    }
    return {
      // A right password clears the username's failures; the address keeps its others (one success must not unlock a sprayer).
      succeeded: async () => {
        await Promise.all([this.byUsername?.delete(userKey), this.byAddress?.reward(address, 1)]);
      },
      abandoned: async () => {
        await Promise.all([this.byUsername?.reward(userKey, 1), this.byAddress?.reward(address, 1)]);
      },
      failed: async () => {
        await Promise.all([this.lockIfReached(this.byUsername, userKey, user.count), this.lockIfReached(this.byAddress, address, client.count)]);
      },
    };
  }

  private async lockIfReached(limiter: RateLimiterAbstract | undefined, key: string, count: number): Promise<void> {
    if (limiter && count >= limiter.points) await limiter.block(key, this.coolDownSeconds);
  }
}

/** Takes one place; admitted while the earlier attempts (failed or in flight) are below the threshold. */
async function reserve(limiter: RateLimiterAbstract | undefined, key: string): Promise<{ admitted: boolean; count: number }> {
  if (!limiter) return { admitted: true, count: 0 };
  const counted = await limiter.penalty(key, 1);
  return { admitted: counted.consumedPoints <= limiter.points, count: counted.consumedPoints };
}

/** Usernames are personal data: the store keeps a hash of them, never the name. */
const usernameKey = (username: string): string => createHash('sha256').update(username).digest('base64url').slice(0, 32);
