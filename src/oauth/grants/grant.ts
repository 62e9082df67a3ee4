import type { IncomingMessage } from 'node:http';
import type { AppAccount } from '../../accounts/schema.js';
import type { GatewayContext } from '../../context.js';
import type { Exchange } from '../../http/exchange.js';
import type { TokenPair } from '../token-pair.js';

/**
 * A grant is named after its wire value and has two steps: `parameters`
 * checks the request's shape (400s, before any credential is verified), and
 * `handler` runs once the client has authenticated.
 */
export interface Grant<Params> {
  readonly grantType: string;
  parameters(req: IncomingMessage, body: Record<string, unknown> | undefined): Params;
  handler(ctx: GatewayContext, client: AppAccount, params: Params, exchange: Exchange): Promise<TokenPair>;
}
