import type { GatewayContext } from '../context.js';
import type { Exchange } from '../http/exchange.js';
import { isJsonContentType } from '../http/negotiate.js';
import { claimedClientId, readOAuthJsonBody } from '../oauth/client-credentials.js';
import type { CallerIdentity } from './policy-phase.js';

/**
 * Who an endpoint's policies count by. They run before the endpoint does any
 * work (above all before a secret is hashed: spike arrest is what bounds that
 * cost), so nobody is authenticated yet and the caller is the one the request
 * claims to be: `client_id` from the headers, HTTP Basic or the JSON body,
 * `user` the password grant's username. Only names we know count: a made-up
 * id per request would otherwise get a fresh allowance each time (and a hash
 * verification with it); unknown ones are counted by address.
 */
export function claimedCaller(ctx: GatewayContext, exchange: Exchange): CallerIdentity {
  const jsonBody = async () => (isJsonContentType(exchange.req.headers['content-type']) ? readOAuthJsonBody(ctx, exchange) : undefined);
  return {
    clientId: async () => {
      const clientId = claimedClientId(exchange.req, await jsonBody());
      return clientId !== undefined && ctx.accounts.findApp(clientId) ? clientId : undefined;
    },
    user: async () => {
      const username = (await jsonBody())?.username;
      return typeof username === 'string' && ctx.accounts.findUser(username) ? username : undefined;
    },
  };
}
