import { GatewayError } from '../errors/gateway-error.js';
import { StreamRejection, type CompiledPolicy, type PolicyRequest } from './policy.js';

/**
 * Runs a chain in order and stops at the first refusal, which becomes the
 * gateway's one error type (rendered in one place, with the spec's message).
 * The policy's name goes to the log, never to the client: as `policy` when
 * the policy refused, and in the detail for anything that failed while its
 * check ran.
 */
export async function enforce(chain: readonly CompiledPolicy[], request: PolicyRequest): Promise<void> {
  for (const policy of chain) {
    let verdict;
    try {
      verdict = await policy.check(request);
    } catch (error) {
      // A streaming check stops a body by throwing its refusal. Anything else
      // failed in what the check consulted (a Bearer token that does not
      // verify, an oversized body): not the policy's verdict, so no `policy`,
      // but the detail still says where it happened.
      if (error instanceof GatewayError) {
        const own = error instanceof StreamRejection ? { policy: policy.name, policyKind: policy.kind } : {};
        throw new GatewayError(error.code, { detail: `policy ${policy.name}: ${error.detail ?? ''}`, headers: error.headers, cause: error, ...own });
      }
      throw error;
    }
    if (verdict) {
      throw new GatewayError(verdict.code, { detail: `policy ${policy.name}: ${verdict.detail}`, headers: verdict.headers, policy: policy.name, policyKind: policy.kind });
    }
  }
}
