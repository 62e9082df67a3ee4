import { GatewayError } from '../errors/gateway-error.js';
import { StreamRejection, type CompiledPolicy, type PolicyRequest, type Rejection, type Verdict } from './policy.js';

/** Told of each refusal of a report-only policy, for the log and the recent refusals; the request goes on. */
export type WouldRefuse = (policy: CompiledPolicy, rejection: Rejection) => void;

/**
 * Runs a chain in order and stops at the first refusal of an enforcing
 * policy, which becomes the gateway's one error type (rendered in one place,
 * with the spec's message). A report-only policy (`mode: report`) runs the
 * same check; its refusal is counted and told to `wouldRefuse`, and the next
 * policy runs, so an enforcing refusal after it still refuses. The policy's
 * name goes to the log, never to the client: as `policy` when the policy
 * refused, and in the detail for anything that failed while its check ran.
 *
 * Each policy's figures count the evaluation and its time: one clock reading
 * per policy (the end of one is the start of the next), none for an empty chain.
 *
 * Returns undefined when the whole chain answered synchronously, else the
 * promise of the rest; a refusal is thrown, or rejects that promise.
 */
export function enforce(chain: readonly CompiledPolicy[], request: PolicyRequest, wouldRefuse: WouldRefuse): Promise<void> | undefined {
  if (chain.length === 0) return undefined;
  return enforceFrom(0, performance.now(), chain, request, wouldRefuse);
}

/**
 * The chain from policy `index` on. Synchronous while the checks answer
 * synchronously (ip-range, regex-protection, time-of-day, json-threat on a
 * body already read): most protected calls then run their chain without a
 * promise, which cost them microtask turns and allocation. At the first
 * check that answers with a promise, the rest of the chain continues in
 * `enforceAfter`, in the same order.
 */
function enforceFrom(index: number, mark: number, chain: readonly CompiledPolicy[], request: PolicyRequest, wouldRefuse: WouldRefuse): Promise<void> | undefined {
  for (let i = index; i < chain.length; i++) {
    const policy = chain[i] as CompiledPolicy;
    let verdict: Verdict | Promise<Verdict>;
    try {
      verdict = policy.check(request);
    } catch (error) {
      policy.figures.evaluated((performance.now() - mark) / 1000);
      throw refusalOf(policy, error);
    }
    if (verdict instanceof Promise) return enforceAfter(verdict, i, mark, chain, request, wouldRefuse);
    mark = settle(policy, verdict, mark, wouldRefuse);
  }
  return undefined;
}

async function enforceAfter(
  pending: Promise<Verdict>,
  index: number,
  mark: number,
  chain: readonly CompiledPolicy[],
  request: PolicyRequest,
  wouldRefuse: WouldRefuse,
): Promise<void> {
  const policy = chain[index] as CompiledPolicy;
  let verdict: Verdict;
  try {
    verdict = await pending;
  } catch (error) {
    policy.figures.evaluated((performance.now() - mark) / 1000);
    throw refusalOf(policy, error);
  }
  const next = settle(policy, verdict, mark, wouldRefuse);
  await enforceFrom(index + 1, next, chain, request, wouldRefuse);
}

/**
 * Counts one evaluation and acts on its verdict: an enforcing refusal throws,
 * a report-only one is told and the chain goes on. Returns the mark from which
 * the next policy's time counts.
 */
function settle(policy: CompiledPolicy, verdict: Verdict, mark: number, wouldRefuse: WouldRefuse): number {
  const now = performance.now();
  policy.figures.evaluated((now - mark) / 1000);
  if (verdict === undefined) return now;
  if (policy.mode === 'report') {
    policy.figures.wouldRefuse();
    wouldRefuse(policy, verdict);
    // What reporting costs is not the next policy's.
    return performance.now();
  }
  policy.figures.refused();
  throw new GatewayError(verdict.code, { detail: `policy ${policy.name}: ${verdict.detail}`, headers: verdict.headers, policy: policy.name, policyKind: policy.kind });
}

/**
 * A check's throw. A streaming check stops a body by throwing its refusal
 * (a report-only one must not: see StreamRejection); it is counted as the
 * policy's refusal. Anything else failed in what the check consulted (a
 * Bearer token that does not verify, an oversized body): not the policy's
 * verdict, so no `policy`, but the detail still says where it happened.
 */
function refusalOf(policy: CompiledPolicy, error: unknown): unknown {
  if (!(error instanceof GatewayError)) return error;
  const own = error instanceof StreamRejection;
  if (own) policy.figures.refused();
  return new GatewayError(error.code, {
    detail: `policy ${policy.name}: ${error.detail ?? ''}`,
    headers: error.headers,
    cause: error,
    ...(own ? { policy: policy.name, policyKind: policy.kind } : {}),
  });
}
