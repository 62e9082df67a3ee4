import { randomBytes } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type CryptoKey, type JWSHeaderParameters, type JWTPayload } from 'jose';
import { toEpochSeconds, type Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { KeyRing } from '../keys/key-ring.js';

/** RFC 9068 section 2.1: the media type that tells an access token from an ID token. */
const ACCESS_TOKEN_TYP = 'at+jwt';

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

export interface AccessTokenSettings {
  ring: KeyRing;
  /** Written into `iss` of the tokens this instance issues. */
  issuer: string;
  /** Accepted in `iss`: this issuer and other regions' issuers sharing the key ring. */
  acceptedIssuers: readonly string[];
  /** Written into `aud`. */
  audience: string;
  /** Accepted in `aud`. */
  acceptedAudiences: readonly string[];
  ttlMs: number;
  leewayMs: number;
  clock: Clock;
}

export interface IssuedAccessToken {
  token: string;
  claims: AccessTokenClaims;
}

export interface AccessTokenSubject {
  username: string;
  clientId: string;
  grantId: string;
}

/** Signs and verifies access tokens (RFC 9068 JWT profile) with the key ring. */
export class AccessTokens {
  /** Built once: Bearer validation is the hot path. */
  private readonly selectKey: (header: JWSHeaderParameters) => CryptoKey;
  private readonly issuers: string[];
  private readonly audiences: string[];

  constructor(private readonly settings: AccessTokenSettings) {
    this.issuers = [...settings.acceptedIssuers];
    this.audiences = [...settings.acceptedAudiences];
    this.selectKey = (header) => {
      const key = settings.ring.selectVerificationKey(header);
      if (!key) throw new joseErrors.JWKSNoMatchingKey();
      return key.publicKey;
    };
  }

  get ttlSeconds(): number {
    return Math.round(this.settings.ttlMs / 1000);
  }

  async issue(subject: AccessTokenSubject, nowMs: number): Promise<IssuedAccessToken> {
    const { ring, issuer, audience } = this.settings;
    const key = ring.selectSigningKey();
    const iat = toEpochSeconds(nowMs);
    const claims: AccessTokenClaims = {
      iss: issuer,
      sub: subject.username,
      aud: audience,
      client_id: subject.clientId,
      iat,
      exp: iat + this.ttlSeconds,
      jti: randomBytes(16).toString('base64url'),
      sid: subject.grantId,
    };
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: ACCESS_TOKEN_TYP })
      .sign(key.privateKey);
    return { token, claims };
  }

  /**
   * Signature with the key's own algorithm only (no `none`, no HMAC keyed with a
   * public key), `typ`, `iss`, `aud`, `exp` with leeway, and the claims every
   * token of ours carries. Any failure is ACCESS_TOKEN_INVALID with the jose
   * code as the log detail.
   */
  async verify(token: string): Promise<AccessTokenClaims> {
    const { ring, leewayMs, clock } = this.settings;
    if (!ring.loaded) throw new GatewayError('SERVICE_UNAVAILABLE', { detail: 'verification keys not loaded yet' });
    try {
      const { payload } = await jwtVerify(token, this.selectKey, {
        // Each key verifies only with its own algorithm (selectVerificationKey); this list only rules out others.
        algorithms: ring.algorithms,
        typ: ACCESS_TOKEN_TYP,
        issuer: this.issuers,
        audience: this.audiences,
        // Seconds, fractions kept: a configured 500ms leeway is 0.5 s, not 0.
        clockTolerance: leewayMs / 1000,
        currentDate: new Date(clock.now()),
        requiredClaims: ['sub', 'client_id', 'iat', 'exp', 'jti', 'sid'],
      });
      return payload as AccessTokenClaims;
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'ERR_UNKNOWN';
      throw new GatewayError('ACCESS_TOKEN_INVALID', { detail: code, cause: error });
    }
  }
}
