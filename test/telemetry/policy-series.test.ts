import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { POLICY_DURATION_BUCKETS, POLICY_METRICS, PolicyFamilies } from '../../src/telemetry/policy-series.js';
import { parseExposition } from '../helpers/metrics.js';

const labels = { policy: 'guard', kind: 'regex-protection' };

async function families() {
  const registry = new Registry();
  const policies = new PolicyFamilies(registry);
  return { policies, scrape: async () => parseExposition(await registry.metrics()) };
}

describe('per-policy series', () => {
  it('gives the same series for the same name and kind, so that a reload keeps counting into it', async () => {
    const { policies } = await families();
    expect(policies.seriesOf('guard', 'regex-protection')).toBe(policies.seriesOf('guard', 'regex-protection'));
    expect(policies.seriesOf('guard', 'regex-protection')).not.toBe(policies.seriesOf('guard', 'ip-range'));
  });

  it('exports each policy from the moment it is known, at zero', async () => {
    const { policies, scrape } = await families();
    policies.seriesOf('guard', 'regex-protection');
    const scraped = await scrape();
    for (const name of [POLICY_METRICS.evaluations, POLICY_METRICS.refusals, POLICY_METRICS.wouldRefuse, POLICY_METRICS.rejections, `${POLICY_METRICS.duration}_count`]) {
      expect([name, scraped.has(name, labels), scraped.value(name, labels)]).toEqual([name, true, 0]);
    }
  });

  it('counts evaluations with their time, refusals, and would-refusals; the old name shows the refusals', async () => {
    const { policies, scrape } = await families();
    const series = policies.seriesOf('guard', 'regex-protection');
    series.evaluated(0.000004);
    series.evaluated(0.0002);
    series.evaluated(2);
    series.refused();
    series.wouldRefuse();
    series.wouldRefuse();
    const scraped = await scrape();
    expect(scraped.typeOf(POLICY_METRICS.duration)).toBe('histogram');
    expect(scraped.value(POLICY_METRICS.evaluations, labels)).toBe(3);
    expect(scraped.value(POLICY_METRICS.refusals, labels)).toBe(1);
    expect(scraped.value(POLICY_METRICS.rejections, labels)).toBe(1);
    expect(scraped.value(POLICY_METRICS.wouldRefuse, labels)).toBe(2);
    expect(scraped.value(`${POLICY_METRICS.duration}_bucket`, { ...labels, le: String(POLICY_DURATION_BUCKETS[0]) })).toBe(1);
    expect(scraped.value(`${POLICY_METRICS.duration}_bucket`, { ...labels, le: '0.00025' })).toBe(2);
    expect(scraped.value(`${POLICY_METRICS.duration}_bucket`, { ...labels, le: '+Inf' })).toBe(3);
    expect(scraped.value(`${POLICY_METRICS.duration}_sum`, labels)).toBeCloseTo(2.000204, 9);
    expect(policies.totalsOf('guard', 'regex-protection')).toEqual({ evaluations: 3, refusals: 1, wouldRefuse: 2, seconds: expect.closeTo(2.000204, 9) });
  });

  it('answers zeros for a policy it never saw', async () => {
    const { policies } = await families();
    expect(policies.totalsOf('nobody', 'ip-range')).toEqual({ evaluations: 0, refusals: 0, wouldRefuse: 0, seconds: 0 });
  });
});
