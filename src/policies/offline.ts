import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { AppAccount } from '../accounts/schema.js';
import { systemClock } from '../clock.js';
import type { GatewayConfig } from '../config/schema.js';
import { attachmentsOf } from './attachments.js';
import { readPolicyFolder } from './policy-file.js';
import { PolicySet } from './policy-set.js';

/**
 * The policy set exactly as `serve` would build it, minus the store: what
 * `token-gateway check` validates (every file, every pattern, every name a
 * route, default, endpoint or app refers to) without touching the network.
 */
export async function loadPolicySetOffline(config: GatewayConfig, apps: readonly AppAccount[]): Promise<PolicySet> {
  const definitions = await readPolicyFolder(config.policies.folder);
  return PolicySet.build(definitions, attachmentsOf(config, apps), {
    clock: systemClock,
    rateLimiter: ({ points, durationSeconds }) => new RateLimiterMemory({ points, duration: durationSeconds }),
  });
}
