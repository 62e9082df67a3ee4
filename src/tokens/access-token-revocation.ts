import { GatewayError } from '../errors/gateway-error.js';
import type { RevocationList } from '../store/types.js';
import type { AccessTokenClaims } from './access-token-claims.js';

/**
 * An access token is revoked on its own (its `jti`) or with its grant (its
 * `sid`: a revoked refresh token, a reuse, the kill switch). What the edge
 * checks after the signature, and what introspection reports, from memory.
 * A starting instance whose list is not loaded yet cannot tell a revoked
 * token from a good one: that is a 503 with Retry-After, never a guess.
 */
export function isAccessTokenRevoked(revocations: RevocationList, claims: Pick<AccessTokenClaims, 'jti' | 'sid'>): boolean {
  if (!revocations.loaded) throw new GatewayError('SERVICE_UNAVAILABLE', { detail: 'revocation list not loaded yet', headers: { 'Retry-After': '1' } });
  return revocations.isRevoked('token', claims.jti) || revocations.isRevoked('grant', claims.sid);
}
