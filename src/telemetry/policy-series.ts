import type { Registry } from 'prom-client';
import { CounterFamily, HistogramFamily, type CounterSeries, type HistogramSeries } from './metric-families.js';

/**
 * Seconds a policy takes: most checks run in microseconds (a cached address,
 * a few patterns on a short path), a spike arrest on Redis waits a round trip,
 * a body check waits for the body.
 */
export const POLICY_DURATION_BUCKETS = [0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1];

/** The metric names of the per-policy series, declared once (docs and tests read them too). */
export const POLICY_METRICS = {
  evaluations: 'token_gateway_policy_evaluations_total',
  refusals: 'token_gateway_policy_refusals_total',
  wouldRefuse: 'token_gateway_policy_would_refuse_total',
  duration: 'token_gateway_policy_evaluation_seconds',
  /** The name `refusals` had before per-policy figures: the same numbers, kept for the dashboards and alerts that use it. */
  rejections: 'token_gateway_policy_rejections_total',
  reportMode: 'token_gateway_policy_report_mode',
} as const;

type PolicyLabels = 'policy' | 'kind';

/**
 * One policy's figures (PolicyFigures, as src/policies/figures.ts declares
 * them): the same object for the same name and kind for the life of the
 * process, so that the compiled policies of every reload count into it.
 */
export class PolicySeries {
  constructor(
    readonly evaluations: CounterSeries<PolicyLabels>,
    readonly refusals: CounterSeries<PolicyLabels>,
    readonly wouldRefusals: CounterSeries<PolicyLabels>,
    readonly duration: HistogramSeries,
  ) {}

  evaluated(seconds: number): void {
    this.evaluations.value++;
    this.duration.observe(seconds);
  }

  refused(): void {
    this.refusals.value++;
  }

  wouldRefuse(): void {
    this.wouldRefusals.value++;
  }
}

/** The totals of one policy as the admin API shows them. */
export interface PolicyTotals {
  readonly evaluations: number;
  readonly refusals: number;
  readonly wouldRefuse: number;
  /** Seconds spent in the policy, all evaluations together. */
  readonly seconds: number;
}

const keyOf = (name: string, kind: string): string => `${kind}\u0000${name}`;

/** The four families of per-policy series (and the old name of one), and the series of each policy by name and kind. */
export class PolicyFamilies {
  private readonly byPolicy = new Map<string, PolicySeries>();
  private readonly evaluations: CounterFamily<PolicyLabels>;
  private readonly refusals: CounterFamily<PolicyLabels>;
  private readonly wouldRefusals: CounterFamily<PolicyLabels>;
  private readonly duration: HistogramFamily<PolicyLabels>;

  constructor(registry: Registry) {
    const labelNames = ['policy', 'kind'] as const;
    this.evaluations = new CounterFamily(registry, {
      name: POLICY_METRICS.evaluations,
      help: 'Evaluations of a policy, whatever their verdict, by policy name and kind.',
      labelNames,
    });
    this.refusals = new CounterFamily(registry, {
      name: POLICY_METRICS.refusals,
      help: 'Requests an enforcing policy refused (its own verdict), by policy name and kind.',
      labelNames,
    });
    this.refusals.exportAs(registry, {
      name: POLICY_METRICS.rejections,
      help: `Deprecated: the same numbers as ${POLICY_METRICS.refusals}, under its earlier name.`,
    });
    this.wouldRefusals = new CounterFamily(registry, {
      name: POLICY_METRICS.wouldRefuse,
      help: 'Requests a report-only policy (mode: report) would have refused and let through, by policy name and kind.',
      labelNames,
    });
    this.duration = new HistogramFamily(registry, {
      name: POLICY_METRICS.duration,
      help: 'Time a policy took to decide (what it awaited included: a store round trip, the body), by policy name and kind.',
      labelNames,
      buckets: POLICY_DURATION_BUCKETS,
    });
  }

  /** The series of a policy, created at zero the first time a set that holds it is compiled. */
  seriesOf(name: string, kind: string): PolicySeries {
    const key = keyOf(name, kind);
    let series = this.byPolicy.get(key);
    if (!series) {
      const labels = { policy: name, kind };
      series = new PolicySeries(this.evaluations.series(labels), this.refusals.series(labels), this.wouldRefusals.series(labels), this.duration.series(labels));
      this.byPolicy.set(key, series);
    }
    return series;
  }

  /** The totals of a policy, zero when it never ran. */
  totalsOf(name: string, kind: string): PolicyTotals {
    const series = this.byPolicy.get(keyOf(name, kind));
    if (!series) return { evaluations: 0, refusals: 0, wouldRefuse: 0, seconds: 0 };
    return { evaluations: series.evaluations.value, refusals: series.refusals.value, wouldRefuse: series.wouldRefusals.value, seconds: series.duration.sum };
  }
}
