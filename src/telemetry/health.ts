import type { ServerResponse } from 'node:http';
import { sendJsonText } from '../http/respond.js';
import type { KeyRing } from '../keys/key-ring.js';
import type { Store } from '../store/types.js';

/** What the rest of the gateway may know of a shutdown: readiness answers `draining` from its first moment. */
export interface ShutdownState {
  readonly draining: boolean;
  /** The grace is over and the requests still in flight were cut: the gateway ended them, not their clients. */
  readonly graceOver: boolean;
}

/** What readiness reads. */
export interface ReadinessSources {
  readonly store: Store;
  readonly keyRing: KeyRing;
  readonly shutdown: ShutdownState;
}

export interface Readiness {
  /** Whether /readyz answers 200: the instance should get traffic (`ready`, or `degraded`). */
  ready: boolean;
  status: 'ready' | 'degraded' | 'not-ready' | 'draining';
  checks: { store: string; keys: string };
}

/**
 * - `ready` (200): the store answers (its mirrors loaded) and the signing keys are loaded: every endpoint works.
 * - `degraded` (200): the store is away, but the keys are loaded and with them the revocation mirror (the keys
 *   are read from the store only once it has loaded the list): protected calls are served from memory, the token
 *   and revocation endpoints answer 503 with Retry-After. Kubernetes takes an instance whose readiness fails out
 *   of its Service's endpoints; were this 503, a Redis outage would take every instance out although each can
 *   still serve the calls that matter most, so it stays in. The JSON `status` tells a balancer that wants
 *   "fully healthy" the difference.
 * - `not-ready` (503): the keys or the whole revocation list are not loaded yet (a Redis store at start,
 *   before it answered; an instance started during an outage, waiting for a peer to write back what Redis
 *   lost): nothing but the probes works.
 * - `draining` (503): shutting down; said at once, so that the balancer stops sending traffic while the last
 *   requests finish.
 */
export function readinessOf(sources: ReadinessSources): Readiness {
  const store = sources.store.health();
  const keysLoaded = sources.keyRing.loaded;
  // Degraded serves protected calls from the revocation mirror: only an instance that holds the whole list may.
  const servable = keysLoaded && sources.store.revocations.loaded;
  const status = sources.shutdown.draining ? 'draining' : !servable ? 'not-ready' : store.ready ? 'ready' : 'degraded';
  return {
    ready: status === 'ready' || status === 'degraded',
    status,
    checks: { store: store.ready ? 'up' : `down: ${store.reason ?? 'unknown'}`, keys: keysLoaded ? 'loaded' : 'not loaded' },
  };
}

/**
 * A cluster primary's answer from its workers' statuses. A worker that is
 * not listening yet (`starting`: it listens only once ready) gets no
 * connection, so it does not count; every worker that gets connections must
 * serve (`ready` or `degraded`), and at least one must. Any worker draining
 * makes the whole `draining`, as a single gateway's shutdown does.
 */
export function clusterReadinessOf(statuses: readonly string[]): Pick<Readiness, 'ready' | 'status'> {
  if (statuses.includes('draining')) return { ready: false, status: 'draining' };
  const receiving = statuses.filter((status) => status !== 'starting');
  if (receiving.length === 0 || !receiving.every((status) => status === 'ready' || status === 'degraded')) return { ready: false, status: 'not-ready' };
  return { ready: true, status: receiving.includes('degraded') ? 'degraded' : 'ready' };
}

const NO_STORE = { 'Cache-Control': 'no-store' };

/** The liveness answer, the same on every listener and in a cluster primary: 200 while the process serves HTTP at all. */
export function sendLiveness(res: ServerResponse): void {
  sendJsonText(res, 200, '{"status":"live"}', NO_STORE);
}

/**
 * The readiness answer of one gateway: 200 while it should get traffic
 * (`ready`, `degraded`), 503 otherwise (keys not loaded yet, draining), with
 * the status and each check. A load balancer takes the instance out of
 * rotation on 503.
 */
export function sendReadiness(res: ServerResponse, sources: ReadinessSources): void {
  const { ready, status, checks } = readinessOf(sources);
  sendJsonText(res, ready ? 200 : 503, JSON.stringify({ status, checks }), NO_STORE);
}
