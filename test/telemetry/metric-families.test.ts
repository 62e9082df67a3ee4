import { AggregatorRegistry, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterFamily, HistogramFamily } from '../../src/telemetry/metric-families.js';
import { parseExposition } from '../helpers/metrics.js';

const exposition = async (registry: { metrics(): Promise<string> }) => parseExposition(await registry.metrics());

describe('CounterFamily', () => {
  it('hands out one series per label set and exports its total, the same on every scrape', async () => {
    const registry = new Registry();
    const family = new CounterFamily(registry, { name: 'test_calls_total', help: 'calls', labelNames: ['route', 'status'] });
    const ok = family.series({ route: '/a', status: '200' });
    expect(family.series({ route: '/a', status: '200' })).toBe(ok);
    ok.inc();
    ok.inc(2);
    family.series({ route: '/a', status: '404' });
    for (let scrape = 0; scrape < 2; scrape++) {
      const scraped = await exposition(registry);
      expect(scraped.typeOf('test_calls_total')).toBe('counter');
      expect(scraped.value('test_calls_total', { route: '/a', status: '200' })).toBe(3);
      // Created is exported, at zero, before its first event.
      expect(scraped.has('test_calls_total', { route: '/a', status: '404' })).toBe(true);
      expect(scraped.value('test_calls_total', { route: '/a', status: '404' })).toBe(0);
    }
  });

  it('works without labels', async () => {
    const registry = new Registry();
    new CounterFamily(registry, { name: 'test_events_total', help: 'events', labelNames: [] }).series({}).inc(4);
    expect((await exposition(registry)).value('test_events_total')).toBe(4);
  });
});

describe('HistogramFamily', () => {
  const histogram = () => {
    const registry = new Registry();
    const family = new HistogramFamily(registry, { name: 'test_seconds', help: 'time', labelNames: ['route'], buckets: [0.01, 0.1, 1] });
    return { registry, family };
  };

  it('exports cumulative buckets as prom-client does: a value on a bound counts in that bucket, one above every bound only in +Inf', async () => {
    const { registry, family } = histogram();
    const series = family.series({ route: '/a' });
    for (const value of [0.01, 0.0101, 0.5, 1, 7]) series.observe(value);
    const scraped = await exposition(registry);
    expect(scraped.typeOf('test_seconds')).toBe('histogram');
    const bucket = (le: string) => scraped.value('test_seconds_bucket', { route: '/a', le });
    expect([bucket('0.01'), bucket('0.1'), bucket('1'), bucket('+Inf')]).toEqual([1, 2, 4, 5]);
    expect(scraped.value('test_seconds_count', { route: '/a' })).toBe(5);
    expect(scraped.value('test_seconds_sum', { route: '/a' })).toBeCloseTo(8.5201, 10);
  });

  it('is summed bucket by bucket when a cluster primary aggregates the registries of its workers', async () => {
    const workers = [histogram(), histogram()];
    workers[0]!.family.series({ route: '/a' }).observe(0.05);
    workers[1]!.family.series({ route: '/a' }).observe(0.5);
    workers[1]!.family.series({ route: '/b' }).observe(0.005);
    const aggregated = AggregatorRegistry.aggregate(await Promise.all(workers.map(({ registry }) => registry.getMetricsAsJSON())));
    const scraped = await exposition(aggregated);
    expect(scraped.value('test_seconds_bucket', { route: '/a', le: '0.1' })).toBe(1);
    expect(scraped.value('test_seconds_bucket', { route: '/a', le: '1' })).toBe(2);
    expect(scraped.value('test_seconds_count', { route: '/a' })).toBe(2);
    expect(scraped.value('test_seconds_count', { route: '/b' })).toBe(1);
  });

  it('resets to zero with the registry', async () => {
    const { registry, family } = histogram();
    family.series({ route: '/a' }).observe(0.5);
    registry.resetMetrics();
    const scraped = await exposition(registry);
    expect(scraped.value('test_seconds_count', { route: '/a' })).toBe(0);
    expect(scraped.value('test_seconds_bucket', { route: '/a', le: '+Inf' })).toBe(0);
  });
});
