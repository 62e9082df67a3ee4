import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';

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
  /** When it was first published: it may sign only once every cached JWKS can hold it (keys/publication.ts). */
  readonly publishedAt: number;
}

/** A new key pair, published at `publishedAt` (the caller's now; by default when it starts signing), signing from `signsFrom`. */
export async function generateSigningKey(alg: SigningAlgorithm, signsFrom: number, publishedAt = signsFrom): Promise<SigningKey> {
  // Extractable so that a shared store can later keep the ring (encrypted) for every instance.
  const options = alg === 'EdDSA' ? { crv: 'Ed25519', extractable: true } : { extractable: true };
  const { privateKey, publicKey } = await generateKeyPair(alg, options);
  const exported = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(exported);
  const publicJwk = Object.freeze({ ...publicOnly(exported), kid, alg, use: 'sig' });
  return Object.freeze({ kid, alg, privateKey, publicKey, publicJwk, signsFrom, publishedAt });
}

/** The same key with another start: a rotation now brings a published key forward. */
export function retimed(key: SigningKey, signsFrom: number): SigningKey {
  return key.signsFrom === signsFrom ? key : Object.freeze({ ...key, signsFrom });
}

const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e'] as const;

/** Copies only the members a public JWK may have: a private member can never slip into the JWKS. */
function publicOnly(jwk: JWK): JWK {
  const result: JWK = {};
  for (const name of PUBLIC_MEMBERS) if (jwk[name] !== undefined) result[name] = jwk[name];
  return result;
}

/** A key as the store keeps it: public JWK in the clear, private JWK sealed by the caller. */
export interface PortableSigningKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly signsFrom: number;
  /** Absent in rings written before it was kept; the importer supplies a default. */
  readonly publishedAt?: number;
  readonly publicJwk: JWK;
  readonly privateJwk: JWK;
}

export async function exportSigningKey(key: SigningKey): Promise<PortableSigningKey> {
  const { kid, alg, signsFrom, publishedAt, publicJwk } = key;
  return { kid, alg, signsFrom, publishedAt, publicJwk, privateJwk: await exportJWK(key.privateKey) };
}

/** Rebuilds a key from its JWKs; refuses one whose kid is not its public key's thumbprint. */
export async function importSigningKey(portable: PortableSigningKey & { readonly publishedAt: number }): Promise<SigningKey> {
  const { kid, alg, signsFrom, publishedAt } = portable;
  const publicJwk = publicOnly(portable.publicJwk);
  if ((await calculateJwkThumbprint(publicJwk)) !== kid) throw new Error(`key ${kid}: kid does not match its public key`);
  const [privateKey, publicKey] = await Promise.all([
    importJWK(portable.privateJwk, alg, { extractable: true }),
    importJWK(publicJwk, alg, { extractable: true }),
  ]);
  if (privateKey instanceof Uint8Array || publicKey instanceof Uint8Array) throw new Error(`key ${kid}: not an asymmetric key`);
  return Object.freeze({ kid, alg, privateKey, publicKey, publicJwk: Object.freeze({ ...publicJwk, kid, alg, use: 'sig' }), signsFrom, publishedAt });
}
