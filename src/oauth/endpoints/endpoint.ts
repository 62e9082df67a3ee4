import type { GatewayContext } from '../../context.js';
import type { Exchange } from '../../http/exchange.js';

/** One endpoint the token service serves itself, at an exact path. */
export interface Endpoint {
  readonly path: string;
  /** Anything else is 405 with an Allow header (SPEC 4.3). */
  readonly methods: readonly string[];
  /** Token and revocation endpoints add RFC 6749 error fields to the envelope. */
  readonly oauthErrors: boolean;
  handle(ctx: GatewayContext, exchange: Exchange): Promise<void>;
}

export const OAUTH_PREFIX = '/oauth2/v1';
