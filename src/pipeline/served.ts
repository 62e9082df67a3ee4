import type { GatewayConfig } from '../config/schema.js';
import type { GatewayContext } from '../context.js';
import type { Exchange } from '../http/exchange.js';
import type { Endpoint } from '../oauth/endpoints/endpoint.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { CompiledPolicy } from '../policies/policy.js';
import type { PolicySet } from '../policies/policy-set.js';
import { claimedCaller } from './endpoint-caller.js';
import type { CallerIdentity } from './policy-phase.js';

/**
 * What serves a request: one of the gateway's own endpoints or one
 * configured route. The pipeline (phases.ts) runs the same phases for every
 * one; this is what each declares differently.
 */
export interface Served<Authenticated = unknown> {
  /** The `route` of logs and metrics: the endpoint's path or the route's prefix as configured. */
  readonly name: string;
  /** Methods served; another is 405 with Allow once the policies before authentication have run. Undefined: any method. */
  readonly methods: readonly string[] | undefined;
  /** The token and revocation endpoints add RFC 6749's `error` fields to the envelope. */
  readonly oauthErrors: boolean;
  /** The most a request body may hold here. */
  bodyLimit(limits: GatewayConfig['limits']): number;
  /** The chain before authentication: the defaults, then its own. */
  policies(set: PolicySet): readonly CompiledPolicy[];
  /** Who those policies count by; `authenticated` verifies the caller on demand (once). */
  caller(ctx: GatewayContext, exchange: Exchange, authenticated: () => MaybePromise<Authenticated>): CallerIdentity;
  /**
   * Verifies the caller and records its app in `exchange.clientId`; resolves
   * at once for a public endpoint, and answers synchronously for a Bearer
   * token verified before.
   */
  authenticate(ctx: GatewayContext, exchange: Exchange): MaybePromise<Authenticated>;
  /** The work: issue, revoke, publish, answer a probe, forward. Always a promise: the phases hand it back as it is. */
  serve(ctx: GatewayContext, exchange: Exchange, authenticated: Authenticated): Promise<void>;
}

const NO_POLICIES: readonly CompiledPolicy[] = Object.freeze([]);
const nobody = async (): Promise<undefined> => undefined;

/**
 * An endpoint as the pipeline runs it: the OAuth body limit, the defaults
 * and `policies.endpoints[path]` (none for the health probes, which a
 * balancer must always reach), the caller the request claims to be.
 */
export function servedEndpoint<A>(endpoint: Endpoint<A>, { policies }: { policies: boolean }): Served<A> {
  const authenticate = endpoint.authenticate?.bind(endpoint) ?? (nobody as unknown as (ctx: GatewayContext, exchange: Exchange) => Promise<A>);
  return {
    name: endpoint.path,
    methods: endpoint.methods,
    oauthErrors: endpoint.oauthErrors,
    bodyLimit: (limits) => limits.oauth_body_size,
    policies: policies ? (set) => set.forEndpoint(endpoint.path) : () => NO_POLICIES,
    caller: (ctx, exchange) => claimedCaller(ctx, exchange, endpoint.formEncoded),
    authenticate,
    serve: (ctx, exchange, authenticated) => {
      exchange.res.setHeader('X-Request-Id', exchange.requestId);
      return endpoint.serve(ctx, exchange, authenticated);
    },
  };
}
