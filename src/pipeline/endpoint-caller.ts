import type { GatewayContext } from '../context.js';
import type { Exchange } from '../http/exchange.js';
import { isReadableForm } from '../http/form-body.js';
import { isJsonContentType } from '../http/negotiate.js';
import { claimedClientId } from '../oauth/client-credentials.js';
import { readsForms, type FormEncoding } from '../oauth/form-encoding.js';
import { readOAuthForm, readOAuthJsonBody, unambiguousMembers } from '../oauth/request-body.js';
import type { CallerIdentity } from './policy-phase.js';

/**
 * Who an endpoint's policies count by. They run before the endpoint does any
 * work (above all before a secret is hashed: spike arrest is what bounds that
 * cost), so nobody is authenticated yet and the caller is the one the request
 * claims to be: `client_id` from the headers, HTTP Basic or the body (JSON,
 * or a form where the endpoint reads forms), `user` the password grant's
 * username. A form is counted exactly as the same JSON request is, so it is
 * no way around a limit. Only names we know count: a made-up id per request
 * would otherwise get a fresh allowance each time (and a hash verification
 * with it); unknown ones, and names a form repeats, are counted by address.
 */
export function claimedCaller(ctx: GatewayContext, exchange: Exchange, forms?: FormEncoding): CallerIdentity {
  const body = async (): Promise<Readonly<Record<string, unknown>> | undefined> => {
    const contentType = exchange.req.headers['content-type'];
    if (isJsonContentType(contentType)) return readOAuthJsonBody(ctx, exchange);
    if (isReadableForm(contentType) && readsForms(ctx, forms)) return unambiguousMembers(await readOAuthForm(exchange));
    return undefined;
  };
  return {
    clientId: async () => {
      const clientId = claimedClientId(exchange.req, await body());
      return clientId !== undefined && ctx.accounts.findApp(clientId) ? clientId : undefined;
    },
    user: async () => {
      const username = (await body())?.username;
      return typeof username === 'string' && ctx.accounts.findUser(username) ? username : undefined;
    },
  };
}
