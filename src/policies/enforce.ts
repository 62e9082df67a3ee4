import type { ErrorCode } from '../errors/catalogue.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { CompiledPolicy, PolicyRequest } from './policy.js';

/**
 * The codes by which a policy refuses (SPEC 7's protection rows). A check can
 * also throw others on the way (the token it verified is invalid, the body it
 * read is malformed): those are not the policy's refusal and are not counted
 * as one.
 */
const REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['REGEX_THREAT', 'JSON_THREAT', 'SPIKE_ARREST', 'IP_RANGE_FORBIDDEN', 'TIME_OF_DAY_FORBIDDEN']);

/**
 * Runs a chain in order and stops at the first refusal, which becomes the
 * gateway's one error type (rendered in one place, with the spec's message).
 * The policy's name goes to the log detail, never to the client.
 */
export async function enforce(chain: readonly CompiledPolicy[], request: PolicyRequest): Promise<void> {
  for (const policy of chain) {
    let verdict;
    try {
      verdict = await policy.check(request);
    } catch (error) {
      // A streaming check stops a body by throwing (and a check may verify the token): the log line still names the policy.
      if (error instanceof GatewayError) {
        const refusedBy = REFUSALS.has(error.code) ? { name: policy.name, kind: policy.kind } : undefined;
        throw new GatewayError(error.code, { detail: `policy ${policy.name}: ${error.detail ?? ''}`, headers: error.headers, cause: error, policy: refusedBy });
      }
      throw error;
    }
    if (verdict) {
      throw new GatewayError(verdict.code, { detail: `policy ${policy.name}: ${verdict.detail}`, headers: verdict.headers, policy: { name: policy.name, kind: policy.kind } });
    }
  }
}
