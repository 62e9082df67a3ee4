import { KeyObject, randomBytes, sign as signWithKeyObject, type webcrypto } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type CryptoKey, type JWSHeaderParameters, type JWTPayload } from 'jose';
import { toEpochSeconds, type Clock } from '../clock.js';
import type { MaybePromise } from '../maybe-promise.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { KeyRing } from '../keys/key-ring.js';
import type { SigningAlgorithm, SigningKey } from '../keys/signing-key.js';
import type { AccessTokenClaims } from './access-token-claims.js';
import { tokenId, VerifiedTokenCache } from './verified-tokens.js';

export type { AccessTokenClaims } from './access-token-claims.js';

/** RFC 9068 section 2.1: the media type that tells an access token from an ID token. */
const ACCESS_TOKEN_TYP = 'at+jwt';

/**
 * The algorithms signed on the event loop with node:crypto instead of by
 * jose, whose WebCrypto signature is a job on libuv's thread pool. For P-256
 * and Ed25519 the trip costs more than the signature: ~65-70 µs of CPU per
 * token through the pool (~20 of them on the event loop) against ~28 (ES256)
 * and ~37 (EdDSA) inline, and one wake-up of the event loop and of a pool
 * thread fewer, each of which interrupts a password hash on a shared core.
 * RSA (RS256, PS256: ~0.3 ms a signature) stays on the pool, off the event
 * loop. Measured in bench/README.md (token-endpoint).
 */
const SIGNED_INLINE: Partial<Record<SigningAlgorithm, { digest: string | null; dsaEncoding?: 'ieee-p1363' }>> = {
  // RFC 7518 section 3.4: the JWS signature is R || S, 64 bytes, not DER.
  ES256: { digest: 'sha256', dsaEncoding: 'ieee-p1363' },
  EdDSA: { digest: null },
};


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
  /** Verified tokens remembered until they expire (default 100,000: ~50 MB of heap, measured). */
  cacheSize?: number;
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

const DEFAULT_CACHE_SIZE = 100_000;

/** Signs and verifies access tokens (RFC 9068 JWT profile) with the key ring. */
export class AccessTokens {
  /** Built once: Bearer validation is the hot path. */
  private readonly selectKey: (header: JWSHeaderParameters) => CryptoKey;
  private readonly issuers: string[];
  private readonly audiences: string[];
  private readonly verified: VerifiedTokenCache;

  constructor(private readonly settings: AccessTokenSettings) {
    this.verified = new VerifiedTokenCache(settings.cacheSize ?? DEFAULT_CACHE_SIZE);
    this.issuers = [...settings.acceptedIssuers];
    this.audiences = [...settings.acceptedAudiences];
    this.selectKey = (header) => {
      const key = settings.ring.selectVerificationKey(header);
      if (!key) throw new joseErrors.JWKSNoMatchingKey();
      return key.publicKey;
    };
  }

  /** Verified tokens currently remembered. */
  get cachedCount(): number {
    return this.verified.size;
  }

  get ttlSeconds(): number {
    return Math.round(this.settings.ttlMs / 1000);
  }

  /**
   * Signs with the key that signs now. A key the ring dropped while the
   * signature was being made (a rotation with drop_previous landed in
   * between) is not given out: the token is signed again with the key that
   * signs then, so that no token carries a dropped key once this instance
   * has acknowledged the drop.
   */
  async issue(subject: AccessTokenSubject, nowMs: number): Promise<IssuedAccessToken> {
    for (;;) {
      const key = this.settings.ring.selectSigningKey();
      const issued = await this.sign(subject, nowMs, key);
      if (this.settings.ring.selectVerificationKey({ kid: key.kid, alg: key.alg })) return issued;
    }
  }

  private async sign(subject: AccessTokenSubject, nowMs: number, key: SigningKey): Promise<IssuedAccessToken> {
    const { issuer, audience } = this.settings;
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
    const header = { alg: key.alg, kid: key.kid, typ: ACCESS_TOKEN_TYP };
    const inline = SIGNED_INLINE[key.alg];
    const token = inline ? signCompact(header, claims, key.privateKey, inline) : await new SignJWT(claims).setProtectedHeader(header).sign(key.privateKey);
    return { token, claims };
  }

  /**
   * Signature with the key's own algorithm only (no `none`, no HMAC keyed with a
   * public key), `typ`, `iss`, `aud`, `exp` with leeway, and the claims every
   * token of ours carries. Any failure is ACCESS_TOKEN_INVALID with the jose
   * code as the log detail. A token verified before is answered from the
   * cache (VerifiedTokenCache) while it is unexpired and its key published.
   */
  async verify(token: string): Promise<Readonly<AccessTokenClaims>> {
    return this.recallOrVerify(token);
  }

  /**
   * verify() for the hot path: the claims themselves, synchronously, for a
   * token verified before (a client reuses its token for 30 minutes, so
   * nearly every protected call), else the promise of the verification.
   * Throws instead of rejecting when the keys are not loaded. `id` is the
   * token's `tokenId`, for a caller that knows it already.
   */
  recallOrVerify(token: string, id: string = tokenId(token)): MaybePromise<Readonly<AccessTokenClaims>> {
    const { ring, clock } = this.settings;
    if (!ring.loaded) throw new GatewayError('SERVICE_UNAVAILABLE', { detail: 'verification keys not loaded yet', headers: { 'Retry-After': '1' } });
    const nowMs = clock.now();
    return this.verified.find(id, ring, nowMs) ?? this.verifySignature(token, id, nowMs);
  }

  private async verifySignature(token: string, id: string, nowMs: number): Promise<Readonly<AccessTokenClaims>> {
    const { ring, leewayMs } = this.settings;
    try {
      const { payload, protectedHeader } = await jwtVerify(token, this.selectKey, {
        // Each key verifies only with its own algorithm (selectVerificationKey); this list only rules out others.
        algorithms: ring.algorithms,
        typ: ACCESS_TOKEN_TYP,
        issuer: this.issuers,
        audience: this.audiences,
        // Seconds, fractions kept: a configured 500ms leeway is 0.5 s, not 0.
        clockTolerance: leewayMs / 1000,
        currentDate: new Date(nowMs),
        requiredClaims: ['sub', 'client_id', 'iat', 'exp', 'jti', 'sid'],
      });
      // selectKey accepted the header, so kid and alg are strings.
      const header = protectedHeader as { kid: string; alg: string };
      // Dropped while the signature was being checked: refused, as it is from now on.
      if (!ring.selectVerificationKey(header)) throw new joseErrors.JWKSNoMatchingKey();
      return this.verified.remember(id, payload as AccessTokenClaims, header, leewayMs);
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'ERR_UNKNOWN';
      throw new GatewayError('ACCESS_TOKEN_INVALID', { detail: code, cause: error });
    }
  }
}

/**
 * The compact JWS jose's SignJWT makes (RFC 7515 7.1: header and claims as
 * JSON.stringify writes them, base64url, then the signature of the two),
 * signed here and now.
 */
function signCompact(header: Readonly<Record<string, string>>, claims: AccessTokenClaims, privateKey: CryptoKey, how: { digest: string | null; dsaEncoding?: 'ieee-p1363' }): string {
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = signWithKeyObject(how.digest, Buffer.from(input), { key: keyObjectOf(privateKey), dsaEncoding: how.dsaEncoding });
  return `${input}.${signature.toString('base64url')}`;
}

const base64url = (text: string): string => Buffer.from(text).toString('base64url');

/** node:crypto signs with a KeyObject: made once per key, forgotten with it. */
const keyObjects = new WeakMap<CryptoKey, KeyObject>();

function keyObjectOf(key: CryptoKey): KeyObject {
  let keyObject = keyObjects.get(key);
  if (!keyObject) keyObjects.set(key, (keyObject = KeyObject.from(key as webcrypto.CryptoKey)));
  return keyObject;
}
