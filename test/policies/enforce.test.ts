import { describe, expect, it } from 'vitest';
import { GatewayError, isGatewayError } from '../../src/errors/gateway-error.js';
import { enforce } from '../../src/policies/enforce.js';
import { StreamRejection, type CompiledPolicy, type PolicyRequest, type Verdict } from '../../src/policies/policy.js';

const request = {} as PolicyRequest;
const policy = (name: string, check: () => Verdict | Promise<Verdict>, ran?: string[]): CompiledPolicy => ({
  name,
  kind: 'test-kind',
  check: () => {
    ran?.push(name);
    return check();
  },
});
const refusal = async (chain: CompiledPolicy[]) => {
  const error = await enforce(chain, request).then(() => undefined, (caught: unknown) => caught);
  if (!isGatewayError(error)) throw new Error(`not refused with a GatewayError: ${String(error)}`);
  return { code: error.code, detail: error.detail, headers: error.headers, policy: error.policy, policyKind: error.policyKind };
};

describe('enforcing a chain of policies', () => {
  it('runs every policy in order when all let the request through', async () => {
    const ran: string[] = [];
    await enforce([policy('a', () => undefined, ran), policy('b', async () => undefined, ran)], request);
    expect(ran).toEqual(['a', 'b']);
  });

  it('stops at the first refusal, naming the policy for the log and the metrics (never for the client)', async () => {
    const ran: string[] = [];
    const chain = [
      policy('first', () => undefined, ran),
      policy('spike', () => ({ code: 'SPIKE_ARREST', detail: '2 in 100ms', headers: { 'Retry-After': '1' } }), ran),
      policy('never', () => undefined, ran),
    ];
    expect(await refusal(chain)).toEqual({ code: 'SPIKE_ARREST', detail: 'policy spike: 2 in 100ms', headers: { 'Retry-After': '1' }, policy: 'spike', policyKind: 'test-kind' });
    expect(ran).toEqual(['first', 'spike']);
  });

  it('counts a body stopped mid-read (a thrown StreamRejection) as the policy\'s own refusal', async () => {
    const chain = [policy('json-guard', () => {
      throw new StreamRejection('JSON_THREAT', { detail: 'depth 33' });
    })];
    expect(await refusal(chain)).toMatchObject({ code: 'JSON_THREAT', detail: 'policy json-guard: depth 33', policy: 'json-guard', policyKind: 'test-kind' });
  });

  it('refuses as the failure itself, without naming a policy, when what a check consulted failed (the Bearer token)', async () => {
    const chain = [policy('per-client', () => {
      throw new GatewayError('ACCESS_TOKEN_INVALID', { detail: 'ERR_JWT_EXPIRED', headers: { 'WWW-Authenticate': 'Bearer' } });
    })];
    expect(await refusal(chain)).toEqual({ code: 'ACCESS_TOKEN_INVALID', detail: 'policy per-client: ERR_JWT_EXPIRED', headers: { 'WWW-Authenticate': 'Bearer' }, policy: undefined, policyKind: undefined });
  });

  it('lets a defect through as it is', async () => {
    const defect = new TypeError('bug in a check');
    await expect(enforce([policy('broken', () => { throw defect; })], request)).rejects.toBe(defect);
  });
});
