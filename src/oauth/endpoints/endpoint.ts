import type { GatewayContext } from '../../context.js';
import type { Exchange } from '../../http/exchange.js';
import type { FormEncoding } from '../form-encoding.js';

/**
 * One endpoint the gateway serves itself, at an exact path. It declares only
 * what differs from the other endpoints and from the routes: the request
 * pipeline (src/pipeline/) runs the same phases for all of them, the
 * policies before authentication, `authenticate`, the app's own policies,
 * then `serve`.
 */
export interface Endpoint<Authenticated = undefined> {
  /** One of the paths of config/paths.ts. */
  readonly path: string;
  /** Anything else is 405 with an Allow header (SPEC 4.3). */
  readonly methods: readonly string[];
  /** Token and revocation endpoints add RFC 6749 error fields to the envelope. */
  readonly oauthErrors: boolean;
  /**
   * Whether it reads RFC 6749 form bodies: `opt-in` (token, revocation: where
   * the operator allows them), `always` (introspection). Absent: never.
   */
  readonly formEncoded?: FormEncoding;
  /**
   * Checks the request's shape and verifies the client (the spec's order of
   * blame: 415 and 400 before 401), recording a verified client in
   * `exchange.clientId` so that its own policies run next. Absent: a public
   * endpoint.
   */
  authenticate?(ctx: GatewayContext, exchange: Exchange): Promise<Authenticated>;
  /** The endpoint's work, for a caller that passed every phase before. */
  serve(ctx: GatewayContext, exchange: Exchange, authenticated: Authenticated): Promise<void>;
}
