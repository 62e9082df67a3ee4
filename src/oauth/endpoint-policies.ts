import type { GatewayContext } from '../context.js';
import { isJsonContentType } from '../http/negotiate.js';
import type { Exchange } from '../http/exchange.js';
import { enforce } from '../policies/enforce.js';
import { openPolicies } from '../policies/policy-request.js';
import { claimedClientId, readOAuthJsonBody } from './client-credentials.js';

/**
 * The defaults and the endpoint's own policies, before the endpoint does any
 * work (above all before a secret is hashed: spike arrest is what bounds that
 * cost). Nobody is authenticated yet, so the caller is the one the request
 * claims to be: `client_id` from the headers, HTTP Basic or the JSON body,
 * `user` the password grant's username. Only names we know count: a made-up
 * id per request would otherwise get a fresh allowance each time (and a hash
 * verification with it); unknown ones are counted by address.
 */
export async function enforceEndpointPolicies(ctx: GatewayContext, exchange: Exchange, path: string): Promise<void> {
  const jsonBody = async () => (isJsonContentType(exchange.req.headers['content-type']) ? readOAuthJsonBody(ctx, exchange) : undefined);
  const { set, request } = openPolicies(ctx, exchange, path, {
    clientId: async () => {
      const clientId = claimedClientId(exchange.req, await jsonBody());
      return clientId !== undefined && ctx.accounts.findApp(clientId) ? clientId : undefined;
    },
    user: async () => {
      const username = (await jsonBody())?.username;
      return typeof username === 'string' && ctx.accounts.findUser(username) ? username : undefined;
    },
  });
  await enforce(set.forEndpoint(path), request);
}
