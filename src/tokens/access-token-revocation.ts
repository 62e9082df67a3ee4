import type { RevocationList } from '../store/types.js';
import type { AccessTokenClaims } from './access-token-claims.js';

/**
 * An access token is revoked on its own (its `jti`) or with its grant (its
 * `sid`: a revoked refresh token, a reuse, the kill switch). What the edge
 * checks after the signature, and what introspection reports, from memory.
 */
export const isAccessTokenRevoked = (revocations: RevocationList, claims: Pick<AccessTokenClaims, 'jti' | 'sid'>): boolean =>
  revocations.isRevoked('token', claims.jti) || revocations.isRevoked('grant', claims.sid);
