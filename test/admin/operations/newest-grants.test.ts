import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NewestGrants } from '../../../src/admin/operations/newest-grants.js';
import type { GrantSummary } from '../../../src/store/types.js';

const grant = (issuedAt: number): GrantSummary => ({ grantId: `g${issuedAt}`, username: 'u', clientId: 'c', issuedAt, lastRefreshedAt: undefined, expiresAt: issuedAt + 1 });

describe('the newest grants of a listing too large to hold', () => {
  it('keeps the `limit` most recent by login time, newest first', () => {
    const newest = new NewestGrants(3);
    for (const at of [5, 1, 9, 3, 7, 2]) newest.offer(grant(at));
    expect(newest.sorted().map((g) => g.issuedAt)).toEqual([9, 7, 5]);
  });

  it('keeps everything offered when fewer than `limit`', () => {
    const newest = new NewestGrants(10);
    for (const at of [2, 1]) newest.offer(grant(at));
    expect(newest.sorted().map((g) => g.issuedAt)).toEqual([2, 1]);
  });

  it('agrees with sorting the whole listing, for any listing and limit', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1_000_000 }), { maxLength: 200 }), fc.integer({ min: 1, max: 50 }), (times, limit) => {
        const newest = new NewestGrants(limit);
        for (const at of times) newest.offer(grant(at));
        const expected = [...times].sort((a, b) => b - a).slice(0, limit);
        expect(newest.sorted().map((g) => g.issuedAt)).toEqual(expected);
      }),
    );
  });
});
