import type { IncomingMessage } from 'node:http';
import type { GatewayContext } from '../context.js';
import { namedClientIds } from './client-credentials.js';

/**
 * Which endpoints read RFC 6749 form bodies: `opt-in` where the spec defines
 * the wire format (token, revocation), so forms are the operator's choice
 * (gateway.yaml `oauth.form_encoded`, accounts.yaml `apps[].form_encoded`);
 * `always` where RFC 7662 is the only format there is (introspection).
 */
export type FormEncoding = 'always' | 'opt-in';

const acceptedByContext = new WeakMap<GatewayContext, boolean>();

/**
 * Whether any app may send forms to the opt-in endpoints: what discovery
 * advertises (`client_secret_post`) and the OpenAPI document describes. An
 * app's own `form_encoded` wins; without one, the gateway-wide value holds.
 * One generation of the configuration and accounts is one context, so the
 * answer is worked out once per context.
 */
export function formsAccepted(ctx: GatewayContext): boolean {
  let accepted = acceptedByContext.get(ctx);
  if (accepted === undefined) {
    const everywhere = ctx.config.oauth.form_encoded;
    const { apps } = ctx.accounts;
    accepted = apps.length === 0 ? everywhere : apps.some((app) => app.form_encoded ?? everywhere);
    acceptedByContext.set(ctx, accepted);
  }
  return accepted;
}

/** Whether an endpoint reads a form body at all (before knowing who sent it). */
export function readsForms(ctx: GatewayContext, encoding: FormEncoding | undefined): boolean {
  return encoding === 'always' || (encoding === 'opt-in' && formsAccepted(ctx));
}

/**
 * Whether an opt-in endpoint serves this form request. The app is known only
 * once the form is read, and it may be named in the form itself
 * (`client_secret_post`), in HTTP Basic or in the `client_id` header: every
 * client_id named anywhere must be an app allowed forms (its own
 * `form_encoded`, else the gateway-wide value), and a request naming none,
 * or an unknown one, gets the gateway-wide value. Anything else is the
 * spec's 415, exactly what the same request gets with the switch off: a
 * conflict between places is not the app's excuse to skip that answer.
 */
export function formPermitted(ctx: GatewayContext, req: IncomingMessage, form: URLSearchParams): boolean {
  const everywhere = ctx.config.oauth.form_encoded;
  const named = namedClientIds(req, form.getAll('client_id'));
  if (named.length === 0) return everywhere;
  return named.every((clientId) => ctx.accounts.findApp(clientId)?.form_encoded ?? everywhere);
}
