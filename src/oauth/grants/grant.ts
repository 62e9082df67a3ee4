import type { AppAccount } from '../../accounts/schema.js';
import type { GatewayContext } from '../../context.js';
import type { Exchange } from '../../http/exchange.js';
import type { OAuthParameters } from '../request-parameters.js';
import type { TokenPair } from '../token-pair.js';

/**
 * A grant is named after its wire value and has two steps: `parameters`
 * checks the request's shape (400s, before any credential is verified), and
 * `handler` runs once the client has authenticated.
 */
export interface Grant<Params> {
  readonly grantType: string;
  parameters(request: OAuthParameters): Params;
  handler(ctx: GatewayContext, client: AppAccount, params: Params, exchange: Exchange): Promise<TokenPair>;
}
