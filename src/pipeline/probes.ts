import { LIVENESS_PATH, READINESS_PATH } from '../config/paths.js';
import type { Endpoint } from '../oauth/endpoints/endpoint.js';
import { sendLiveness, sendReadiness } from '../telemetry/health.js';

/*
 * The health probes on the client listener, kept there because the contract
 * had them before the admin listener existed (the admin listener serves the
 * same answers: admin/routes.ts). No policy runs on them: a balancer must
 * always reach them.
 */

export const readinessEndpoint: Endpoint = {
  path: READINESS_PATH,
  methods: ['GET', 'HEAD'],
  oauthErrors: false,
  async serve(ctx, exchange) {
    sendReadiness(exchange.res, ctx);
  },
};

export const livenessEndpoint: Endpoint = {
  path: LIVENESS_PATH,
  methods: ['GET', 'HEAD'],
  oauthErrors: false,
  async serve(_ctx, exchange) {
    sendLiveness(exchange.res);
  },
};
