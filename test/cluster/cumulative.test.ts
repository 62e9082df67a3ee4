import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CumulativeReports } from '../../src/cluster/cumulative.js';

/** A worker's registry answer (getMetricsAsJSON) with `requests` counted and `up` as a gauge. */
async function report(requests: number, up = 1): Promise<object[]> {
  const registry = new Registry();
  new Counter({ name: 'requests_total', help: 'h', registers: [registry] }).inc(requests);
  new Gauge({ name: 'store_up', help: 'h', registers: [registry] }).set(up);
  return registry.getMetricsAsJSON();
}

/** The cluster's scrape: the reports summed as the primary sums them. */
async function summed(reports: ReadonlyArray<readonly object[]>): Promise<{ requests: number; up: number | undefined }> {
  const json = await AggregatorRegistry.aggregate(reports as Parameters<typeof AggregatorRegistry.aggregate>[0]).getMetricsAsJSON();
  const value = (name: string) => (json.find((metric) => metric.name === name) as { values: Array<{ value: number }> } | undefined)?.values[0]?.value;
  return { requests: value('requests_total') ?? 0, up: value('store_up') };
}

describe("the cluster's summed counters never go down", () => {
  it('sums the reports that came', async () => {
    const cumulative = new CumulativeReports();
    const reports = await cumulative.reportsFor([
      { pid: 1, answer: await report(10) },
      { pid: 2, answer: await report(5) },
    ]);
    expect((await summed(reports)).requests).toBe(15);
  });

  it('counts a silent worker with its last report, counters only (its gauge says nothing about now)', async () => {
    const cumulative = new CumulativeReports();
    await cumulative.reportsFor([
      { pid: 1, answer: await report(10) },
      { pid: 2, answer: await report(5, 0) },
    ]);
    const reports = await cumulative.reportsFor([
      { pid: 1, answer: await report(12) },
      { pid: 2, answer: undefined },
    ]);
    expect(await summed(reports)).toEqual({ requests: 17, up: 1 });
  });

  it("keeps a departed worker's final counts in the totals, however many come and go", async () => {
    const cumulative = new CumulativeReports();
    await cumulative.reportsFor([
      { pid: 1, answer: await report(10) },
      { pid: 2, answer: await report(5) },
    ]);
    // Worker 2 is replaced by worker 3, which starts from zero.
    let reports = await cumulative.reportsFor([
      { pid: 1, answer: await report(11) },
      { pid: 3, answer: await report(0) },
    ]);
    expect((await summed(reports)).requests).toBe(16);
    // Worker 1 goes too.
    reports = await cumulative.reportsFor([
      { pid: 3, answer: await report(2) },
      { pid: 4, answer: await report(1) },
    ]);
    expect((await summed(reports)).requests).toBe(19);
  });

  it('has nothing to stand in for a silent worker it never heard from', async () => {
    const cumulative = new CumulativeReports();
    const reports = await cumulative.reportsFor([{ pid: 9, answer: undefined }]);
    expect(reports).toEqual([]);
  });
});
