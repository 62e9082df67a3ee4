import { LIVENESS_PATH, POLICY_ENDPOINTS, READINESS_PATH } from '../config/paths.js';
import type { GatewayConfig } from '../config/schema.js';
import { isGatewayError } from '../errors/gateway-error.js';
import type { CompiledPolicy } from '../policies/policy.js';
import type { PolicySet } from '../policies/policy-set.js';
import { RouteTable } from '../proxy/routes.js';
import { routingPathOf } from '../proxy/safe-path.js';
import { CommandLineError } from './command-errors.js';

/** What the gateway would serve a request with, as far as the policies go. */
export interface ServedChain {
  /** `route /business/score/v2/`, `endpoint /oauth2/v1/token`, `probe /readyz`. */
  readonly served: string;
  /** The path the policies see: decoded once on a route, as sent on an endpoint. */
  readonly path: string;
  /** The most its body may hold: limits.body_size on a route, limits.oauth_body_size on an endpoint. */
  readonly bodyLimit: number;
  /** The defaults and the route's or endpoint's own, before authentication. */
  readonly before: readonly CompiledPolicy[];
  /** The app's own, once its client is known. */
  readonly app: readonly CompiledPolicy[];
}

/** The gateway refuses the request before any policy runs (an unsafe path): not a policy's verdict, exit 1. */
export class RefusedBeforePolicies extends Error {
  override readonly name = 'RefusedBeforePolicies';
}

/**
 * The chains the gateway would run for this request, found as the request
 * handler finds what serves it: an endpoint by exact path, else the longest
 * route on the path decoded once. `--route` or `--endpoint` names the chain
 * outright. A path nothing serves is an input mistake here (the gateway would
 * answer 404 before any policy), so it is a command-line error.
 */
export function chainFor(config: GatewayConfig, set: PolicySet, rawPath: string, choice: { route?: string; endpoint?: string }, clientId: string | undefined): ServedChain {
  const app = clientId === undefined ? [] : set.forApp(clientId);
  const endpoint = (path: string): ServedChain => ({ served: `endpoint ${path}`, path: rawPath, bodyLimit: config.limits.oauth_body_size, before: set.forEndpoint(path), app });
  const route = (path: string, routingPath: string): ServedChain => ({ served: `route ${path}`, path: routingPath, bodyLimit: config.limits.body_size, before: set.forRoute(path), app });
  if (choice.endpoint !== undefined) {
    if (!(POLICY_ENDPOINTS as readonly string[]).includes(choice.endpoint)) {
      throw new CommandLineError(`--endpoint must be one of ${POLICY_ENDPOINTS.join(', ')}, got "${choice.endpoint}"`);
    }
    return endpoint(choice.endpoint);
  }
  if (choice.route !== undefined) {
    if (!config.routes.some((each) => each.path === choice.route)) {
      throw new CommandLineError(`--route must be a route of ${config.source} (${config.routes.map((each) => each.path).join(', ') || 'none configured'}), got "${choice.route}"`);
    }
    return route(choice.route, safeRoutingPath(rawPath));
  }
  if (rawPath === LIVENESS_PATH || rawPath === READINESS_PATH) return { served: `probe ${rawPath}`, path: rawPath, bodyLimit: 0, before: [], app: [] };
  if ((POLICY_ENDPOINTS as readonly string[]).includes(rawPath)) return endpoint(rawPath);
  const routingPath = safeRoutingPath(rawPath);
  let matched;
  try {
    matched = new RouteTable(config.routes).match(routingPath);
  } catch (error) {
    if (isGatewayError(error)) throw new RefusedBeforePolicies(`the gateway refuses this path before any policy: ${error.detail ?? error.code} (400 ${error.code})`);
    throw error;
  }
  if (!matched) throw new CommandLineError(`no route or endpoint of ${config.source} serves ${rawPath} (the gateway would answer 404 before any policy); give --route or correct the path`);
  return route(matched.path, routingPath);
}

function safeRoutingPath(rawPath: string): string {
  try {
    return routingPathOf(rawPath);
  } catch (error) {
    if (isGatewayError(error)) throw new RefusedBeforePolicies(`the gateway refuses this path before any policy: ${error.detail ?? error.code} (400 ${error.code})`);
    throw error;
  }
}
