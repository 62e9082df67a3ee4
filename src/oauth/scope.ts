import { GatewayError } from '../errors/gateway-error.js';
import type { OAuthParameters } from './request-parameters.js';

/**
 * RFC 6749 3.3 and 5.1, as Keycloak and node-oidc-provider read them: the
 * gateway defines no scopes (an access token is the app's whole access, and
 * carries no `scope` claim), so a request for any scope asks for something
 * that cannot be granted and is refused with `invalid_scope` (RFC 6749 5.2),
 * rather than answered with a token that silently lacks it. Requesting none
 * (absent or blank) is granted as asked, so the response omits `scope`
 * (5.1: identical to the request). Only forms have the parameter: a JSON
 * body's other members are ignored, as the spec's clients rely on.
 */
export function assertNoScopeRequested(request: OAuthParameters): void {
  if (request.format !== 'form') return;
  const scope = request.body?.scope;
  if (typeof scope === 'string' && scope.trim() !== '') {
    throw new GatewayError('INVALID_SCOPE', { detail: 'a scope was requested; this service defines none' });
  }
}
