import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import type { CompileDeps } from '../../../src/policies/policy.js';
import { spikeArrest } from '../../../src/policies/spike-arrest/check.js';
import { ManualClock } from '../../helpers/clock.js';
import { policyRequest } from '../../helpers/policy-request.js';

const compile = (settings: Record<string, unknown>, clock = new ManualClock()) => {
  const deps: CompileDeps = { clock, rateLimiter: ({ points, durationSeconds }) => new RateLimiterMemory({ points, duration: durationSeconds }) };
  return spikeArrest.compile(spikeArrest.schema.parse({ name: 'upstream-guard', kind: 'spike-arrest', ...settings }), deps);
};

describe('spike-arrest: identifier all, one counter for every caller', () => {
  it('counts different clients, addresses and users together', async () => {
    const check = compile({ rate: '1ps', identifier: 'all' });
    expect(await check(policyRequest({ clientId: 'app-one', clientAddress: '10.0.0.1', user: 'alice' }))).toBeUndefined();
    const second = await check(policyRequest({ clientId: 'app-two', clientAddress: '10.0.0.2', user: 'bob' }));
    expect(second?.code).toBe('SPIKE_ARREST');
  });

  it('never asks who the caller is (no token verified for it)', async () => {
    const check = compile({ rate: '5ps', identifier: 'all' });
    const request = { ...policyRequest(), clientId: () => Promise.reject(new Error('asked for the client')), user: () => Promise.reject(new Error('asked for the user')) };
    expect(await check(request)).toBeUndefined();
  });

  it('is refused with a header, which only identifier: header reads', () => {
    expect(spikeArrest.schema.safeParse({ name: 'p', kind: 'spike-arrest', rate: '1ps', identifier: 'all', header: 'X-Id' }).success).toBe(false);
  });
});
