import { describe, expect, it } from 'vitest';
import type { CompileDeps, PolicyCheck, Verdict } from '../../../src/policies/policy.js';
import { spikeArrest } from '../../../src/policies/spike-arrest/check.js';
import { MemoryWindowCounter } from '../../../src/store/memory.js';
import { ManualClock } from '../../helpers/clock.js';
import { policyRequest, type PolicyRequestInit } from '../../helpers/policy-request.js';

/** A check on its own counters and a clock at the start of a second, so windows are easy to name. */
function compile(settings: Record<string, unknown>) {
  const clock = new ManualClock(Date.parse('2026-11-23T15:00:00.000Z'));
  const counters = new Map<string, MemoryWindowCounter>();
  const check = spikeArrest.compile(spikeArrest.schema.parse({ name: 'spike', kind: 'spike-arrest', ...settings }), {
    clock,
    windowCounter: ({ name, points }) => {
      const counter = counters.get(name) ?? new MemoryWindowCounter(points);
      counters.set(name, counter);
      return counter;
    },
  });
  return { clock, check };
}

/** 'pass', or the Retry-After of the refusal. */
async function outcome(check: PolicyCheck, init: PolicyRequestInit = { clientId: 'portal' }): Promise<string> {
  const verdict = await check(policyRequest(init));
  if (!verdict) return 'pass';
  expect(verdict.code).toBe('SPIKE_ARREST');
  return `retry after ${verdict.headers?.['Retry-After']}`;
}

describe('spike-arrest check (SPEC 5.8)', () => {
  it('smooths 10ps into one request per 100 ms window', async () => {
    const { clock, check } = compile({ rate: '10ps' });
    expect(await outcome(check)).toBe('pass');
    expect(await outcome(check)).toBe('retry after 1');
    clock.advance(99);
    expect(await outcome(check)).toBe('retry after 1');
    clock.advance(1);
    expect(await outcome(check)).toBe('pass');
  });

  it('judges a known caller synchronously on in-memory counters (no promise per request)', () => {
    const { check } = compile({ rate: '10ps', burst: 1 });
    const request = policyRequest({ clientId: 'portal', callerKnown: true });
    const verdicts = [check(request), check(request), check(request)];
    for (const verdict of verdicts) expect(verdict).not.toBeInstanceOf(Promise);
    expect(verdicts.map((verdict) => (verdict as Verdict)?.code)).toEqual([undefined, undefined, 'SPIKE_ARREST']);
  });

  it('says in whole seconds, at least one, when the next window opens', async () => {
    const { clock, check } = compile({ rate: '1pm' });
    expect(await outcome(check)).toBe('pass');
    clock.advance(15_000);
    expect(await outcome(check)).toBe('retry after 45');
  });

  it('counts a window afresh when the clock steps back into it, as for any window it moves to', async () => {
    const { clock, check } = compile({ rate: '10ps' });
    expect(await outcome(check)).toBe('pass'); // window 0, full now
    clock.advance(100);
    expect(await outcome(check)).toBe('pass'); // window 1
    clock.advance(-100);
    // The memory counter holds only the current window: back in window 0, it starts from nothing.
    expect(await outcome(check)).toBe('pass');
    expect(await outcome(check)).toBe('retry after 1');
  });

  it('does not let refused requests consume later windows', async () => {
    const { clock, check } = compile({ rate: '10ps' });
    await outcome(check);
    for (let i = 0; i < 20; i++) await outcome(check);
    clock.advance(100);
    expect(await outcome(check)).toBe('pass');
  });

  it('admits rate / 1000 per millisecond above 1000ps', async () => {
    const { clock, check } = compile({ rate: '2000ps' });
    expect([await outcome(check), await outcome(check), await outcome(check)]).toEqual(['pass', 'pass', 'retry after 1']);
    clock.advance(1);
    expect(await outcome(check)).toBe('pass');
  });

  it('spends the burst allowance only when a window is taken, and no more of it than configured per unit', async () => {
    const { clock, check } = compile({ rate: '1ps', burst: 2 });
    expect([await outcome(check), await outcome(check), await outcome(check), await outcome(check)]).toEqual(['pass', 'pass', 'pass', 'retry after 1']);
    clock.advance(1_000);
    expect(await outcome(check)).toBe('pass');
  });

  it.each([
    ['client_id', { clientId: 'a' }, { clientId: 'b' }],
    ['user', { user: 'alice' }, { user: 'bob' }],
    ['header', { headers: { 'x-caller': 'one' } }, { headers: { 'x-caller': 'two' } }],
    ['ip', { clientAddress: '203.0.113.1' }, { clientAddress: '203.0.113.2' }],
  ] as const)('counts callers apart by %s', async (identifier, first, second) => {
    const { check } = compile({ rate: '1ps', identifier, ...(identifier === 'header' ? { header: 'X-Caller' } : {}) });
    expect([await outcome(check, first), await outcome(check, first), await outcome(check, second)]).toEqual(['pass', 'retry after 1', 'pass']);
  });

  it('counts a request without the identifier by its address, apart from a caller named like that address', async () => {
    const { check } = compile({ rate: '1ps', identifier: 'user' });
    expect(await outcome(check, { clientAddress: '203.0.113.9' })).toBe('pass');
    expect(await outcome(check, { clientAddress: '203.0.113.9' })).toBe('retry after 1');
    expect(await outcome(check, { user: 'ip:203.0.113.9', clientAddress: '203.0.113.9' })).toBe('pass');
  });

  it('counts every caller apart when more callers come than it remembers keys for', async () => {
    const { check } = compile({ rate: '1ps', identifier: 'client_id' });
    // Past 10,000 remembered callers the memo of keys starts over; each caller keeps its own counter throughout.
    for (let i = 0; i <= 10_001; i++) expect(await outcome(check, { clientId: `client-${i}` })).toBe('pass');
    expect(await outcome(check, { clientId: 'client-0' })).toBe('retry after 1');
    expect(await outcome(check, { clientId: 'client-10001' })).toBe('retry after 1');
  });

  it('keeps a long header value apart from another with the same beginning (keys hold a hash of it)', async () => {
    const { check } = compile({ rate: '1ps', identifier: 'header', header: 'x-caller' });
    const long = 'x'.repeat(200);
    expect(await outcome(check, { headers: { 'x-caller': `${long}1` } })).toBe('pass');
    expect(await outcome(check, { headers: { 'x-caller': `${long}2` } })).toBe('pass');
    expect(await outcome(check, { headers: { 'x-caller': `${long}1` } })).toBe('retry after 1');
  });
});

const compileAll = (settings: Record<string, unknown>, clock = new ManualClock()) => {
  const deps: CompileDeps = { clock, windowCounter: ({ points }) => new MemoryWindowCounter(points) };
  return spikeArrest.compile(spikeArrest.schema.parse({ name: 'upstream-guard', kind: 'spike-arrest', ...settings }), deps);
};

describe('spike-arrest: identifier all, one counter for every caller', () => {
  it('counts different clients, addresses and users together', async () => {
    const check = compileAll({ rate: '1ps', identifier: 'all' });
    expect(await check(policyRequest({ clientId: 'app-one', clientAddress: '10.0.0.1', user: 'alice' }))).toBeUndefined();
    const second = await check(policyRequest({ clientId: 'app-two', clientAddress: '10.0.0.2', user: 'bob' }));
    expect(second?.code).toBe('SPIKE_ARREST');
  });

  it('never asks who the caller is (no token verified for it)', async () => {
    const check = compileAll({ rate: '5ps', identifier: 'all' });
    const request = { ...policyRequest(), clientId: () => Promise.reject(new Error('asked for the client')), user: () => Promise.reject(new Error('asked for the user')) };
    expect(await check(request)).toBeUndefined();
  });

  it('is refused with a header, which only identifier: header reads', () => {
    expect(spikeArrest.schema.safeParse({ name: 'p', kind: 'spike-arrest', rate: '1ps', identifier: 'all', header: 'X-Id' }).success).toBe(false);
  });
});
