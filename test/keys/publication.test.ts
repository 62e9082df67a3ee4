import { describe, expect, it } from 'vitest';
import { earliestSigningTime, jwksMaxAgeSeconds, publicationLeadMs } from '../../src/keys/publication.js';

/** Publish before use (src/keys/publication.ts): the JWKS cache lifetime, declared once, bounds when a key may sign. */

const HOUR = 3_600_000;

describe('the JWKS cache lifetime and the lead a key needs', () => {
  it.each([
    [24 * HOUR, 300, 310_000],
    [HOUR, 300, 310_000],
    [60_000, 30, 36_000],
    [6_000, 3, 3_600],
    [1_500, 0, 150],
  ])('rotation interval %i ms: max-age %i s, lead %i ms', (interval, maxAge, lead) => {
    expect(jwksMaxAgeSeconds(interval)).toBe(maxAge);
    expect(publicationLeadMs(interval)).toBe(lead);
  });

  it('never asks for more than an interval, so that a scheduled key (published an interval ahead) is always old enough', () => {
    for (const interval of [100, 999, 1_000, 20_000, 600_000, 601_000, 7 * 24 * HOUR]) expect(publicationLeadMs(interval)).toBeLessThanOrEqual(interval);
  });

  it('lets a key sign only once published for the lead', () => {
    expect(earliestSigningTime(1_000_000, 24 * HOUR)).toBe(1_310_000);
  });
});
