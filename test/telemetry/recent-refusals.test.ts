import { describe, expect, it } from 'vitest';
import { RecentRefusals, type RefusalRecord } from '../../src/telemetry/recent-refusals.js';

const refusal = (n: number): RefusalRecord => ({
  at: n,
  route: '/api/',
  policy: `p${n}`,
  kind: 'ip-range',
  mode: 'enforce',
  status: 403,
  errorCode: 'IP_RANGE_FORBIDDEN',
  clientId: undefined,
  clientAddress: '10.0.0.1',
  requestId: `r${n}`,
});

describe('the recent refusals: a ring of fixed size', () => {
  it('holds nothing at first', () => {
    expect(new RecentRefusals().newest()).toEqual([]);
  });

  it('gives the newest first, as many as asked', () => {
    const ring = new RecentRefusals(5);
    for (let n = 1; n <= 3; n++) ring.record(refusal(n));
    expect(ring.newest().map((record) => record.at)).toEqual([3, 2, 1]);
    expect(ring.newest(2).map((record) => record.at)).toEqual([3, 2]);
  });

  it('forgets the oldest once full, whatever the flood', () => {
    const ring = new RecentRefusals(5);
    for (let n = 1; n <= 1_000; n++) ring.record(refusal(n));
    expect(ring.newest().map((record) => record.at)).toEqual([1000, 999, 998, 997, 996]);
    expect(ring.newest(100)).toHaveLength(5);
  });

  it('keeps 100 by default, frozen so that no reader changes them', () => {
    const ring = new RecentRefusals();
    expect(ring.capacity).toBe(100);
    ring.record(refusal(1));
    expect(Object.isFrozen(ring.newest()[0])).toBe(true);
  });
});
