import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { catalogue, type ErrorCode } from '../errors/catalogue.js';
import type { Exchange } from '../http/exchange.js';
import type { KeyRing } from '../keys/key-ring.js';
import type { RotationTrigger } from '../keys/rotation.js';
import type { Store } from '../store/types.js';
import { readinessOf, type ShutdownState } from './health.js';
import { CounterFamily, HistogramFamily, type CounterSeries, type HistogramSeries } from './metric-families.js';
import { PolicyFamilies, POLICY_METRICS, type PolicySeries, type PolicyTotals } from './policy-series.js';

/** What a scrape answers: the exposition text and the Content-Type its registry states. */
export interface Exposition {
  readonly contentType: string;
  readonly text: string;
}

/** What the gauges read when Prometheus scrapes: never sampled on a timer, never stale. */
export interface MetricsSources {
  readonly store: Store;
  readonly keyRing: KeyRing;
  readonly shutdown: ShutdownState;
  /** The policies in force, for the gauge that says which run in report mode; read at scrape time. */
  readonly policies?: () => Iterable<{ readonly name: string; readonly kind: string; readonly mode: string }>;
  /** Log lines this process dropped because standard output did not keep up (log/destination.ts). */
  readonly logLinesDropped?: () => number;
}

/** One route's requests as the operations page charts them: totals, whose rates the page computes between two reads. */
export interface RouteTraffic {
  readonly route: string;
  readonly requests: number;
  /** Answered with a 4xx of the gateway's own (a policy, a credential, a limit); an upstream's 4xx is not counted here. */
  readonly refused: number;
  /** Answered with a 5xx, the gateway's or the upstream's. */
  readonly failed: number;
}

/** What a revocation revoked: a whole grant (refresh token), one access token, or nothing it knew (the endpoint's 200 anyway, RFC 7009 2.2). */
export type RevokedTokenType = 'refresh_token' | 'access_token' | 'none';

/** Who revoked: a client at the revocation endpoint, an operator's kill switch, or the refresh grant detecting a replay. */
export type RevocationReason = 'revocation_endpoint' | 'kill_switch' | 'reuse_detected';

/**
 * A used refresh token presented again: `answered` with the same successor
 * (a retry within the grace window), or refused as a replay (the grant is
 * revoked) for the first rule it broke (store/types.ts ReplayReason).
 */
export type RefreshRetryOutcome = 'answered' | 'after_window' | 'successor_used' | 'too_many';

const REVOKED_SERIES: ReadonlyArray<readonly [RevokedTokenType, RevocationReason]> = [
  ['refresh_token', 'revocation_endpoint'],
  ['access_token', 'revocation_endpoint'],
  ['none', 'revocation_endpoint'],
  ['refresh_token', 'kill_switch'],
  ['refresh_token', 'reuse_detected'],
];

const RETRY_OUTCOMES: readonly RefreshRetryOutcome[] = ['answered', 'after_window', 'successor_used', 'too_many'];

/** The `route` of a request no route or endpoint served (404s, malformed targets): never the raw path, which a client chooses. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Seconds: from a protected call answered in a millisecond to an upstream at a long route timeout; argon2 on the token endpoint lands in the tens of milliseconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type RequestLabels = 'route' | 'method' | 'status';

/** The hot path's series of one route, found with one map lookup per request. */
class RouteSeries {
  readonly duration: HistogramSeries;
  /** Answers the gateway refused itself (4xx), for the operations page; counted on the error path only. */
  refused = 0;
  private upstreamSeries: HistogramSeries | undefined;
  private readonly byMethod = new Map<string, Map<number, CounterSeries>>();

  constructor(
    private readonly route: string,
    private readonly requests: CounterFamily<RequestLabels>,
    duration: HistogramFamily<'route'>,
    private readonly upstreamFamily: HistogramFamily<'route'>,
  ) {
    this.duration = duration.series({ route });
  }

  /** Created on the first forwarded call, so that the OAuth endpoints have no empty upstream series. */
  get upstream(): HistogramSeries {
    return (this.upstreamSeries ??= this.upstreamFamily.series({ route: this.route }));
  }

  /** Requests answered, and how many of them with a 5xx: read from the request counters, not counted twice. */
  totals(): { requests: number; failed: number } {
    let requests = 0;
    let failed = 0;
    for (const byStatus of this.byMethod.values()) {
      for (const [status, series] of byStatus) {
        requests += series.value;
        if (status >= 500) failed += series.value;
      }
    }
    return { requests, failed };
  }

  requestsOf(method: string, status: number): CounterSeries {
    let byStatus = this.byMethod.get(method);
    if (!byStatus) this.byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) byStatus.set(status, (series = this.requests.series({ route: this.route, method, status: String(status) })));
    return series;
  }
}

/**
 * The gateway's Prometheus metrics, in a registry of its own (a process may
 * run several gateways: tests do). Label values are bounded by
 * configuration, never by what a client sends: `route` is a configured route
 * prefix or an endpoint path, `method` one node's HTTP parser accepts,
 * `error_code` a catalogue code, `policy` a configured policy name.
 */
export class Metrics {
  /** Everything GET /metrics shows: these metrics and the process's. */
  readonly registry: Registry;
  private readonly requests: CounterFamily<RequestLabels>;
  private readonly duration: HistogramFamily<'route'>;
  private readonly upstream: HistogramFamily<'route'>;
  private readonly issued: CounterFamily<'grant_type'>;
  private readonly revoked: CounterFamily<'token_type' | 'reason'>;
  private readonly refreshRetries = new Map<RefreshRetryOutcome, CounterSeries>();
  private readonly failures = new Map<ErrorCode, CounterSeries>();
  private readonly policyFamilies: PolicyFamilies;
  private readonly rotations = new Map<RotationTrigger, CounterSeries>();
  private readonly routes = new Map<string, RouteSeries>();

  constructor(sources: MetricsSources) {
    const own = new Registry();
    this.requests = new CounterFamily(own, {
      name: 'token_gateway_requests_total',
      help: 'Requests answered, by route (configured prefix or endpoint path), method and status.',
      labelNames: ['route', 'method', 'status'],
    });
    this.duration = new HistogramFamily(own, {
      name: 'token_gateway_request_duration_seconds',
      help: 'Time from the request reaching the gateway to its response ending, by route.',
      labelNames: ['route'],
      buckets: DURATION_BUCKETS,
    });
    this.upstream = new HistogramFamily(own, {
      name: 'token_gateway_upstream_duration_seconds',
      help: 'Forwarded calls: time from handing the request to the forwarder to the upstream response headers, by route.',
      labelNames: ['route'],
      buckets: DURATION_BUCKETS,
    });
    this.issued = new CounterFamily(own, { name: 'token_gateway_tokens_issued_total', help: 'Token pairs issued, by grant type.', labelNames: ['grant_type'] });
    this.revoked = new CounterFamily(own, {
      name: 'token_gateway_tokens_revoked_total',
      help:
        'Revocations, by what was revoked (refresh_token: its whole grant; access_token; none: the endpoint knew nothing to revoke) ' +
        'and why: revocation_endpoint, kill_switch (per grant), reuse_detected (a refresh-token replay).',
      labelNames: ['token_type', 'reason'],
    });
    const retries = new CounterFamily(own, {
      name: 'token_gateway_refresh_retries_total',
      help:
        'Used refresh tokens presented again, by outcome: answered (a retry within tokens.refresh_grace, the same successor), ' +
        'or refused as a replay (the grant revoked): after_window, successor_used, too_many.',
      labelNames: ['outcome'],
    });
    for (const outcome of RETRY_OUTCOMES) this.refreshRetries.set(outcome, retries.series({ outcome }));
    const failures = new CounterFamily(own, {
      name: 'token_gateway_failures_total',
      help: 'Error responses, by catalogue error code (the spec error row) and status.',
      labelNames: ['error_code', 'status'],
    });
    for (const [code, entry] of Object.entries(catalogue) as Array<[ErrorCode, (typeof catalogue)[ErrorCode]]>) {
      this.failures.set(code, failures.series({ error_code: code, status: String(entry.status) }));
    }
    this.policyFamilies = new PolicyFamilies(own);
    const rotations = new CounterFamily(own, {
      name: 'token_gateway_key_rotations_total',
      help: 'Changes this instance made to the shared key ring, by trigger: schedule (next key published, retired key dropped) or admin (rotate now).',
      labelNames: ['trigger'],
    });
    for (const trigger of ['schedule', 'admin'] as const) this.rotations.set(trigger, rotations.series({ trigger }));
    for (const grantType of ['password', 'refresh_token']) this.issued.series({ grant_type: grantType });
    for (const [tokenType, reason] of REVOKED_SERIES) this.revoked.series({ token_type: tokenType, reason });
    registerGauges(own, sources);
    this.registry = Registry.merge([processMetrics(), own]);
  }

  /** Called once per request, when its response is over and its handler has settled. */
  requestCompleted(exchange: Exchange, status: number, seconds: number): void {
    const route = this.routeSeries(exchange.route ?? UNMATCHED_ROUTE);
    route.requestsOf(exchange.req.method ?? 'UNKNOWN', status).inc();
    route.duration.observe(seconds);
    const { forwardedAt, upstreamRespondedAt, error } = exchange;
    if (forwardedAt !== undefined && upstreamRespondedAt !== undefined) route.upstream.observe(Number(upstreamRespondedAt - forwardedAt) / 1e9);
    if (!error) return;
    if (status < 500) route.refused++;
    // A policy's refusals are counted by the policy itself, as it refuses (PolicySeries).
    this.failures.get(error.code)?.inc();
  }

  /**
   * The figures of a policy by name and kind: the same object across reloads,
   * so that a policy keeps its counts through an edit of its file or its mode.
   */
  policySeries(name: string, kind: string): PolicySeries {
    return this.policyFamilies.seriesOf(name, kind);
  }

  policyTotals(name: string, kind: string): PolicyTotals {
    return this.policyFamilies.totalsOf(name, kind);
  }

  /** Every route's totals since start, in the order the routes were first seen. */
  traffic(): RouteTraffic[] {
    return [...this.routes.entries()].map(([route, series]) => ({ route, ...series.totals(), refused: series.refused }));
  }

  tokensIssued(grantType: string): void {
    this.issued.series({ grant_type: grantType }).inc();
  }

  tokenRevoked(tokenType: RevokedTokenType, reason: RevocationReason): void {
    this.revoked.series({ token_type: tokenType, reason }).inc();
  }

  refreshRetried(outcome: RefreshRetryOutcome): void {
    this.refreshRetries.get(outcome)?.inc();
  }

  keyRotated(trigger: RotationTrigger): void {
    this.rotations.get(trigger)?.inc();
  }

  /** The text exposition format, with its Content-Type. */
  async exposition(): Promise<Exposition> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  private routeSeries(route: string): RouteSeries {
    let series = this.routes.get(route);
    if (!series) this.routes.set(route, (series = new RouteSeries(route, this.requests, this.duration, this.upstream)));
    return series;
  }
}

/**
 * State read at scrape time. Each says how a cluster primary combines its
 * workers' values: one worker down makes the whole not up and not ready.
 */
function registerGauges(registry: Registry, sources: MetricsSources): void {
  const gauge = (name: string, help: string, aggregator: 'min' | 'max', read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      aggregator,
      collect() {
        this.set(read());
      },
    });
  gauge('token_gateway_store_up', '1 while the store answers and its mirrors are loaded, else 0 (the reason is in the log and /readyz).', 'min', () =>
    sources.store.health().ready ? 1 : 0,
  );
  gauge('token_gateway_ready', '1 while /readyz answers 200 (ready, or degraded: the store away, protected calls served from memory), else 0.', 'min', () =>
    readinessOf(sources).ready ? 1 : 0,
  );
  gauge('token_gateway_revocation_list_size', 'Entries in the revocation list (revoked access tokens and grants not yet expired).', 'max', () => sources.store.revocations.size);
  gauge('token_gateway_signing_keys', 'Keys in the key ring: the signing one, the next one, and retired ones still verifying.', 'max', () => sources.keyRing.list().length);
  const { logLinesDropped } = sources;
  new Counter({
    name: 'token_gateway_log_lines_dropped_total',
    help: 'Log lines dropped because standard output did not take them fast enough (more than 4 MiB waiting); a warning line with the count follows once it does.',
    registers: [registry],
    aggregator: 'sum',
    collect() {
      // The count lives with the destination; a counter only ever moves up to it.
      const total = logLinesDropped?.() ?? 0;
      this.reset();
      if (total > 0) this.inc(total);
    },
  });
  const { policies } = sources;
  if (!policies) return;
  new Gauge({
    name: POLICY_METRICS.reportMode,
    help: 'Per policy in force: 1 when it runs in report mode (counts what it would refuse, refuses nothing), 0 when it enforces.',
    labelNames: ['policy', 'kind'],
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.reset();
      for (const { name, kind, mode } of policies()) this.set({ policy: name, kind }, mode === 'report' ? 1 : 0);
    },
  });
}

let processRegistry: Registry | undefined;

/**
 * CPU, memory, file descriptors, event loop lag and GC, under the usual
 * `process_` and `nodejs_` names that Node.js dashboards expect. They describe
 * the process, so there is one set per process however many gateways it runs.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}
