import type { KeyObject } from 'node:crypto';
import type { AccountRegistry } from './accounts/registry.js';
import type { Clock } from './clock.js';
import type { GatewayConfig } from './config/schema.js';
import type { KeyRing } from './keys/key-ring.js';
import type { KeyRotation } from './keys/rotation.js';
import type { Logger } from './log/logger.js';
import type { AccessTokens } from './tokens/access-token.js';
import type { LoginThrottle } from './accounts/login-throttle.js';
import type { ShutdownState } from './telemetry/health.js';
import type { Metrics } from './telemetry/metrics.js';
import type { RecentRefusals } from './telemetry/recent-refusals.js';
import type { PolicyRuntime } from './policies/runtime.js';
import type { Store } from './store/types.js';

/**
 * Everything a request handler may use. One context is one generation of
 * gateway.yaml and accounts.yaml: a reload builds a new one (src/ops/generation.ts)
 * and a request keeps the one it started with. Code that outlives a request
 * asks for the current one each time instead of keeping it.
 */
export interface GatewayContext {
  readonly config: GatewayConfig;
  readonly clock: Clock;
  /** The public base URL: `iss` of every token and the base of every published URL. */
  readonly issuer: string;
  readonly accounts: AccountRegistry;
  readonly store: Store;
  readonly keyRing: KeyRing;
  /** Rotating the signing key now (admin API), through the same lock and schedule as the automatic rotation. */
  readonly keyRotation: KeyRotation;
  readonly accessTokens: AccessTokens;
  /**
   * The environment's key for deriving a rotated refresh token's successor
   * (tokens/refresh-token-value.ts): derived from the key-encryption key on
   * Redis, so every instance computes the same successor; random per process
   * on the memory store.
   */
  readonly refreshSuccessorKey: KeyObject;
  readonly logger: Logger;
  /** The policies in force; a request reads `current` once and keeps that set. */
  readonly policies: PolicyRuntime;
  /** Failed-password counters (brute force). */
  readonly loginThrottle: LoginThrottle;
  /** Prometheus metrics, served on the admin listener. */
  readonly metrics: Metrics;
  /** The latest policy refusals and would-refusals of this process, for the admin API and the operations page. */
  readonly refusals: RecentRefusals;
  /** Whether a graceful shutdown has begun (readiness then answers 503 `draining`). */
  readonly shutdown: ShutdownState;
}
