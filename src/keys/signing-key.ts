import { calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';

export type SigningAlgorithm = 'ES256' | 'RS256' | 'PS256' | 'EdDSA';

export interface SigningKey {
  /** RFC 7638 thumbprint of the public key: stable, collision-free, derived rather than invented. */
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  /** Public members only, with kid, alg and use: what the JWKS publishes. */
  readonly publicJwk: Readonly<JWK>;
  /** When this key starts signing (it is published before then). */
  readonly signsFrom: number;
}

export async function generateSigningKey(alg: SigningAlgorithm, signsFrom: number): Promise<SigningKey> {
  // Extractable so that a shared store can later keep the ring (encrypted) for every instance.
  const options = alg === 'EdDSA' ? { crv: 'Ed25519', extractable: true } : { extractable: true };
  const { privateKey, publicKey } = await generateKeyPair(alg, options);
  const exported = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(exported);
  const publicJwk = Object.freeze({ ...publicOnly(exported), kid, alg, use: 'sig' });
  return Object.freeze({ kid, alg, privateKey, publicKey, publicJwk, signsFrom });
}

const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e'] as const;

/** Copies only the members a public JWK may have: a private member can never slip into the JWKS. */
function publicOnly(jwk: JWK): JWK {
  const result: JWK = {};
  for (const name of PUBLIC_MEMBERS) if (jwk[name] !== undefined) result[name] = jwk[name];
  return result;
}
