import { createHash } from 'node:crypto';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { GatewayConfig } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Store } from '../store/types.js';

type BruteForceSettings = GatewayConfig['brute_force'];

/**
 * Failed password attempts, counted per username and per client address in
 * the store (so every instance counts together). Reaching a threshold locks
 * that username or address for the cool-down: the token endpoint then answers
 * the spec's default 401 without verifying the password at all, so a locked
 * account reveals nothing about whether a guess was right.
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

  /** Throws the spec's default 401 while either the username or the address is locked. */
  async assertNotLocked(username: string, address: string): Promise<void> {
    const [user, client] = await Promise.all([isLocked(this.byUsername, usernameKey(username)), isLocked(this.byAddress, address)]);
    if (user || client) {
      throw new GatewayError('LOGIN_LOCKED', { detail: user ? 'username locked after repeated failed passwords' : `address ${address} locked after repeated failed passwords` });
    }
  }

  async recordFailure(username: string, address: string): Promise<void> {
    await Promise.all([this.fail(this.byUsername, usernameKey(username)), this.fail(this.byAddress, address)]);
  }

  /** A correct password clears the username's failures (not the address's: one success must not unlock a spraying address). */
  async recordSuccess(username: string): Promise<void> {
    await this.byUsername?.delete(usernameKey(username));
  }

  private async fail(limiter: RateLimiterAbstract | undefined, key: string): Promise<void> {
    if (!limiter) return;
    const counted = await limiter.penalty(key, 1);
    if (counted.consumedPoints >= limiter.points) await limiter.block(key, this.coolDownSeconds);
  }
}

async function isLocked(limiter: RateLimiterAbstract | undefined, key: string): Promise<boolean> {
  if (!limiter) return false;
  const counted = await limiter.get(key);
  return counted !== null && counted.consumedPoints >= limiter.points;
}

/** Usernames are personal data: the store keeps a hash of them, never the name. */
const usernameKey = (username: string): string => createHash('sha256').update(username).digest('base64url').slice(0, 32);
