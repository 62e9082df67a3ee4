import type { ServerResponse } from 'node:http';
import type { GatewayContext } from '../context.js';
import { sendJsonText } from '../http/respond.js';
import type { Endpoint } from '../oauth/endpoints/endpoint.js';
import type { AdminRoute } from './admin-server.js';

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
export function readinessOf(ctx: Pick<GatewayContext, 'store' | 'keyRing' | 'shutdown'>): Readiness {
  const store = ctx.store.health();
  const keysLoaded = ctx.keyRing.loaded;
  const ready = store.ready && keysLoaded && !ctx.shutdown.draining;
  return {
    ready,
    status: ctx.shutdown.draining ? 'draining' : ready ? 'ready' : 'not-ready',
    checks: { store: store.ready ? 'up' : `down: ${store.reason ?? 'unknown'}`, keys: keysLoaded ? 'loaded' : 'not loaded' },
  };
}

const NO_STORE = { 'Cache-Control': 'no-store' };

/** The liveness answer, the same on every listener and in a cluster primary. */
export function sendLiveness(res: ServerResponse): void {
  sendJsonText(res, 200, '{"status":"live"}', NO_STORE);
}

/** The readiness answer of one gateway: 200 ready, else 503 with the status and each check. */
function sendReadiness(res: ServerResponse, ctx: Pick<GatewayContext, 'store' | 'keyRing' | 'shutdown'>): void {
  const { ready, status, checks } = readinessOf(ctx);
  sendJsonText(res, ready ? 200 : 503, JSON.stringify({ status, checks }), NO_STORE);
}

/**
 * GET /readyz: 200 when this instance can serve every endpoint, 503 with the
 * reason otherwise (Redis unreachable, key ring not loaded yet, draining). A load
 * balancer takes the instance out of rotation on 503.
 */
export const readinessEndpoint: Endpoint = {
  path: '/readyz',
  methods: ['GET', 'HEAD'],
  oauthErrors: false,

  async handle(ctx, exchange) {
    sendReadiness(exchange.res, ctx);
  },
};

/** GET /livez: 200 while the process serves HTTP at all; a failing liveness probe means restart it. */
export const livenessEndpoint: Endpoint = {
  path: '/livez',
  methods: ['GET', 'HEAD'],
  oauthErrors: false,

  async handle(_ctx, exchange) {
    sendLiveness(exchange.res);
  },
};

/** The same probes on the admin listener, where orchestrators and monitoring look for them. */
export function healthRoutes(ctx: GatewayContext): Array<[string, AdminRoute]> {
  return [
    ['/livez', { methods: ['GET', 'HEAD'], handle: async (_req, res) => sendLiveness(res) }],
    ['/readyz', { methods: ['GET', 'HEAD'], handle: async (_req, res) => sendReadiness(res, ctx) }],
  ];
}
