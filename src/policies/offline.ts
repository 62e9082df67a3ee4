import type { AppAccount } from '../accounts/schema.js';
import { systemClock, type Clock } from '../clock.js';
import type { GatewayConfig } from '../config/schema.js';
import { MemoryWindowCounter } from '../store/memory.js';
import { attachmentsOf } from './attachments.js';
import { readPolicyFolder } from './policy-file.js';
import { PolicySet } from './policy-set.js';

/**
 * The policy set exactly as `serve` would build it, minus the store: what
 * `token-gateway check` validates (every file, every pattern, every name a
 * route, default, endpoint or app refers to) without touching the network,
 * and what `token-gateway policy test` runs a request through. Its spike
 * arrests count in fresh in-memory counters, empty at first; its clock is
 * the one given (the dry run's `--at`).
 */
export async function loadPolicySetOffline(config: GatewayConfig, apps: readonly AppAccount[], clock: Clock = systemClock): Promise<PolicySet> {
  const definitions = await readPolicyFolder(config.policies.folder);
  return PolicySet.build(definitions, attachmentsOf(config, apps), {
    clock,
    windowCounter: ({ points }) => new MemoryWindowCounter(points),
  });
}
