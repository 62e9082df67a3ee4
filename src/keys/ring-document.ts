import type { StoredKeyRing } from '../store/types.js';
import type { KeyRing } from './key-ring.js';
import type { KeySealer } from './sealing.js';
import { exportSigningKey, importSigningKey, type PortableSigningKey, type SigningKey } from './signing-key.js';

/** The key ring as the store keeps it: public halves in the clear, private ones sealed under the KEK. */
interface RingDocument {
  keys: Array<Omit<PortableSigningKey, 'privateJwk'> & { privateJwk: string }>;
  /**
   * Kids a rotation now removed on purpose (a leaked key, an upcoming key
   * that was replaced). Without them an instance that still held such a key
   * would take it for one the store lost, and write it back. Absent in rings
   * written before rotations now existed.
   */
  dropped?: string[];
}

/** Dropped kids remembered: rotations now are rare, and 100 kids are ~5 KB. */
const MAX_DROPPED_KIDS = 100;

export async function sealRing(keys: readonly SigningKey[], dropped: readonly string[], sealer: KeySealer): Promise<string> {
  const sorted = [...keys].sort((a, b) => a.signsFrom - b.signsFrom); // the ring's own order, so kid lists compare
  const portable = await Promise.all(sorted.map(exportSigningKey));
  const document: RingDocument = {
    keys: portable.map((key) => ({ ...key, privateJwk: sealer.seal(key.kid, JSON.stringify(key.privateJwk)) })),
    ...(dropped.length > 0 ? { dropped: [...dropped] } : {}),
  };
  return JSON.stringify(document);
}

/**
 * The stored keys; the ring's own when the stored ring holds exactly its
 * kids with the same starts (no decryption on every resync). Kids, not the
 * version, decide: after a store came back empty, two instances may each
 * have written a different ring as version 1.
 */
export async function openRing(stored: StoredKeyRing, ring: KeyRing, sealer: KeySealer): Promise<{ keys: readonly SigningKey[]; dropped: readonly string[] }> {
  const document = JSON.parse(stored.document) as RingDocument;
  return { keys: await openKeys(document, ring, sealer), dropped: document.dropped ?? [] };
}

async function openKeys(document: RingDocument, ring: KeyRing, sealer: KeySealer): Promise<readonly SigningKey[]> {
  const local = ring.list();
  const same = (key: RingDocument['keys'][number], i: number) => key.kid === local[i]?.kid && key.signsFrom === local[i]?.signsFrom;
  if (local.length === document.keys.length && document.keys.every(same)) return local;
  return Promise.all(
    document.keys.map((key) => {
      let privateJwk: PortableSigningKey['privateJwk'];
      try {
        privateJwk = JSON.parse(sealer.open(key.kid, key.privateJwk)) as PortableSigningKey['privateJwk'];
      } catch {
        throw new KeyRingSealError(key.kid);
      }
      // Rings written before keys carried it: the schedule published each key one interval before it signed.
      return importSigningKey({ ...key, privateJwk, publishedAt: key.publishedAt ?? key.signsFrom - ring.rotationIntervalMs });
    }),
  );
}

/** `earlier` then `later` without repeats, the most recent MAX_DROPPED_KIDS only. */
export function rememberDropped(earlier: readonly string[], later: readonly string[]): readonly string[] {
  const merged = [...new Set([...earlier, ...later])];
  return merged.slice(-MAX_DROPPED_KIDS);
}

/** The stored ring was sealed under another key-encryption key (or environment): never overwrite it, say so. */
export class KeyRingSealError extends Error {
  constructor(readonly kid: string) {
    super(
      `cannot decrypt signing key ${kid} from the store: it was encrypted under another key-encryption key or environment ` +
        '(every instance of an environment needs the same TOKEN_GATEWAY_KEY_ENCRYPTION_KEY)',
    );
    this.name = 'KeyRingSealError';
  }
}
