import type { JWTPayload } from 'jose';

/** The claims of every access token the gateway issues (RFC 9068 section 2.2, plus `sid`). */
export interface AccessTokenClaims extends JWTPayload {
  iss: string;
  sub: string;
  aud: string;
  client_id: string;
  iat: number;
  exp: number;
  jti: string;
  /** The grant the token was issued from; revoking the grant revokes the token. */
  sid: string;
}
