import { AggregatorRegistry } from 'prom-client';
import type { WorkerAnswer } from './questions.js';

/** A metric as prom-client's getMetricsAsJSON() gives it: only the fields read here. */
interface MetricJson {
  readonly type?: unknown;
  readonly aggregator?: unknown;
}

/** A worker's whole registry, as it answered the `metrics` question. */
type Report = readonly object[];

/**
 * Keeps the cluster's summed counters and histograms from ever going down.
 *
 * Prometheus reads any drop of a counter as a reset to 0 and takes the whole
 * new value as the increase since then: had one of four workers, each at a
 * million requests, been left out of one scrape (silent past the deadline)
 * or replaced, rate() would show three million requests in that interval.
 * So a worker that is silent counts with its last report, and one that is
 * gone with its final one, folded into the totals of departed workers (one
 * registry's worth, however many have come and gone). Gauges are left out of
 * both: a silent or gone worker's `store_up` says nothing about now.
 */
export class CumulativeReports {
  /** The latest report of each worker by pid, while it runs. */
  private readonly latest = new Map<number, Report>();
  /** The counters and histograms of workers that are gone, summed. */
  private departed: Report = [];

  /** The reports to aggregate for this scrape: those that came, stand-ins for silent workers, and the departed totals. */
  async reportsFor(answers: ReadonlyArray<WorkerAnswer<'metrics'>>): Promise<Report[]> {
    const running = new Set(answers.flatMap(({ pid }) => (pid === undefined ? [] : [pid])));
    await this.retire([...this.latest.keys()].filter((pid) => !running.has(pid)));
    const reports: Report[] = [];
    for (const { pid, answer } of answers) {
      if (answer) {
        if (pid !== undefined) this.latest.set(pid, answer);
        reports.push(answer);
      } else {
        const last = pid === undefined ? undefined : this.latest.get(pid);
        if (last) reports.push(cumulativeOnly(last));
      }
    }
    if (this.departed.length > 0) reports.push(this.departed);
    return reports;
  }

  private async retire(pids: readonly number[]): Promise<void> {
    if (pids.length === 0) return;
    const finals = pids.flatMap((pid) => {
      const last = this.latest.get(pid);
      this.latest.delete(pid);
      return last ? [cumulativeOnly(last)] : [];
    });
    const summed = AggregatorRegistry.aggregate([this.departed, ...finals]);
    this.departed = await summed.getMetricsAsJSON();
  }
}

/** Counters and histograms that the cluster sums: what only ever grows. */
function cumulativeOnly(report: Report): Report {
  return report.filter((metric) => {
    const { type, aggregator = 'sum' } = metric as MetricJson;
    return (type === 'counter' || type === 'histogram') && aggregator === 'sum';
  });
}
