import { GatewayError } from '../errors/gateway-error.js';
import type { CompiledPolicy, PolicyRequest } from './policy.js';

/**
 * Runs a chain in order and stops at the first refusal, which becomes the
 * gateway's one error type (rendered in one place, with the spec's message).
 * The policy's name goes to the log detail, never to the client.
 */
export async function enforce(chain: readonly CompiledPolicy[], request: PolicyRequest): Promise<void> {
  for (const policy of chain) {
    const verdict = await policy.check(request);
    if (verdict) throw new GatewayError(verdict.code, { detail: `policy ${policy.name}: ${verdict.detail}`, headers: verdict.headers });
  }
}
