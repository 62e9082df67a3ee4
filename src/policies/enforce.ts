import { GatewayError } from '../errors/gateway-error.js';
import type { CompiledPolicy, PolicyRequest } from './policy.js';

/**
 * Runs a chain in order and stops at the first refusal, which becomes the
 * gateway's one error type (rendered in one place, with the spec's message).
 * The policy's name goes to the log (`policy`, and the detail), never to
 * the client. A failure raised while a check ran (the Bearer token it asked
 * for, the body it read) is refused under that policy too: `errorCode` tells
 * which it was.
 */
export async function enforce(chain: readonly CompiledPolicy[], request: PolicyRequest): Promise<void> {
  for (const policy of chain) {
    let verdict;
    try {
      verdict = await policy.check(request);
    } catch (error) {
      // A streaming check stops a body by throwing (and a check may verify the token): the log line still names the policy.
      if (error instanceof GatewayError) {
        throw new GatewayError(error.code, { detail: `policy ${policy.name}: ${error.detail ?? ''}`, headers: error.headers, cause: error, policy: policy.name });
      }
      throw error;
    }
    if (verdict) throw new GatewayError(verdict.code, { detail: `policy ${policy.name}: ${verdict.detail}`, headers: verdict.headers, policy: policy.name });
  }
}
