import type { ServerResponse } from 'node:http';
import { sendJsonText } from '../http/respond.js';
import type { KeyRing } from '../keys/key-ring.js';
import type { Store } from '../store/types.js';

/** What the rest of the gateway may know of a shutdown: readiness answers `draining` from its first moment. */
export interface ShutdownState {
  readonly draining: boolean;
}

/** What readiness reads. */
export interface ReadinessSources {
  readonly store: Store;
  readonly keyRing: KeyRing;
  readonly shutdown: ShutdownState;
}

export interface Readiness {
  ready: boolean;
  status: 'ready' | 'not-ready' | 'draining';
  checks: { store: string; keys: string };
}

/**
 * Ready when the store answers (its mirrors loaded) and the signing keys are
 * loaded, and not shutting down: a draining instance says so at once, so that
 * the balancer stops sending it traffic while its last requests finish.
 */
export function readinessOf(sources: ReadinessSources): Readiness {
  const store = sources.store.health();
  const keysLoaded = sources.keyRing.loaded;
  const ready = store.ready && keysLoaded && !sources.shutdown.draining;
  return {
    ready,
    status: sources.shutdown.draining ? 'draining' : ready ? 'ready' : 'not-ready',
    checks: { store: store.ready ? 'up' : `down: ${store.reason ?? 'unknown'}`, keys: keysLoaded ? 'loaded' : 'not loaded' },
  };
}

const NO_STORE = { 'Cache-Control': 'no-store' };

/** The liveness answer, the same on every listener and in a cluster primary: 200 while the process serves HTTP at all. */
export function sendLiveness(res: ServerResponse): void {
  sendJsonText(res, 200, '{"status":"live"}', NO_STORE);
}

/**
 * The readiness answer of one gateway: 200 when it can serve every endpoint,
 * 503 with the status and each check otherwise (Redis unreachable, key ring
 * not loaded yet, draining). A load balancer takes the instance out of
 * rotation on 503.
 */
export function sendReadiness(res: ServerResponse, sources: ReadinessSources): void {
  const { ready, status, checks } = readinessOf(sources);
  sendJsonText(res, ready ? 200 : 503, JSON.stringify({ status, checks }), NO_STORE);
}
