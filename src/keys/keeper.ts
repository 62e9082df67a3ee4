import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { KeyRingStorage, StoredKeyRing } from '../store/types.js';
import type { KeyRing } from './key-ring.js';
import type { KeySealer } from './sealing.js';
import { exportSigningKey, importSigningKey, type PortableSigningKey, type SigningKey } from './signing-key.js';

export interface KeeperOptions {
  ring: KeyRing;
  storage: KeyRingStorage;
  sealer: KeySealer;
  logger: Logger;
  clock: Clock;
  /** How long one instance may hold the rotation lock before another may take over. */
  lockTtlMs?: number;
  /** How long to wait before retrying when another instance holds the lock. */
  busyRetryMs?: number;
}

interface RingDocument {
  keys: Array<Omit<PortableSigningKey, 'privateJwk'> & { privateJwk: string }>;
}

const SYNC_ATTEMPTS = 3;
const NOT_LOADED_RETRY_MS = 1_000;
const MAX_SLEEP_MS = 60_000;

/**
 * Keeps the local key ring and the stored one the same. Every instance reads
 * the stored ring (at start, when told it changed, and on every resync); only
 * the instance holding the lock adds or drops keys, and every write is a
 * compare-and-set on the ring's version, so two writers can never both win.
 *
 * A store that lost the ring (Redis restarted without persistence) gets the
 * local keys written back, merged with whatever is there, so that every
 * access token already issued still verifies.
 */
export class KeyRingKeeper {
  private version = 0;
  private busyUntil = 0;
  private syncing: Promise<void> | undefined;
  private syncAgain = false;

  constructor(private readonly options: KeeperOptions) {
    options.storage.onChange(() => {
      this.sync().catch((error: unknown) => options.logger.warn({ err: error }, 'could not load the changed key ring; the periodic resync will retry'));
    });
  }

  get ring(): KeyRing {
    return this.options.ring;
  }

  /** Makes the local ring current; concurrent calls share one run (plus one more if asked meanwhile). */
  sync(): Promise<void> {
    if (this.syncing) {
      this.syncAgain = true;
      return this.syncing;
    }
    this.syncing = this.syncOnce().finally(() => {
      this.syncing = undefined;
      if (this.syncAgain) {
        this.syncAgain = false;
        void this.sync().catch(() => undefined);
      }
    });
    return this.syncing;
  }

  /** When the scheduler should next call `maintain`. */
  nextDueAt(): number {
    const now = this.options.clock.now();
    // Not loaded yet: look again soon. Loaded: never sleep past a minute, so a ring adopted from another instance is looked at in time.
    if (!this.ring.loaded) return now + NOT_LOADED_RETRY_MS;
    return Math.min(Math.max(this.ring.nextDueAt(), this.busyUntil), now + MAX_SLEEP_MS);
  }

  /**
   * Adds the next key / drops expired ones when due, under the lock. Returns
   * whether this instance changed the ring. Signing switches keys by the
   * clock alone, so a late or failed maintenance never stops signing.
   */
  async maintain(): Promise<boolean> {
    const { ring, storage, logger } = this.options;
    if (!ring.loaded || !ring.plan().changes) return false;
    const release = await storage.tryLock(this.options.lockTtlMs ?? 30_000);
    if (!release) {
      // Another instance is rotating; its save will reach us through onChange.
      this.busyUntil = this.options.clock.now() + (this.options.busyRetryMs ?? 1_000);
      return false;
    }
    this.busyUntil = 0;
    try {
      await this.syncOnce(); // the latest stored ring: another instance may have rotated already
      const keys = await ring.maintainedKeys();
      if (!keys) return false;
      if (!(await this.write(keys, this.version))) {
        logger.warn('the stored key ring changed under the rotation lock; reloading it');
        await this.syncOnce();
        return false;
      }
      return true;
    } finally {
      await release().catch(() => undefined);
    }
  }

  private async syncOnce(): Promise<void> {
    const { ring, storage } = this.options;
    for (let attempt = 0; attempt < SYNC_ATTEMPTS; attempt++) {
      const stored = await storage.load();
      const storedKeys = stored ? await this.open(stored) : [];
      // Keys this instance still needs but the store no longer has (it came back empty, or a racing writer dropped them).
      const storedKids = new Set(storedKeys.map((key) => key.kid));
      const missing = ring.loaded ? ring.plan().kept.filter((key) => !storedKids.has(key.kid)) : [];
      if (stored && missing.length === 0) {
        ring.replaceKeys(storedKeys);
        this.version = stored.version;
        return;
      }
      const keys = stored || ring.loaded ? [...storedKeys, ...missing] : await ring.initialKeys();
      if (await this.write(keys, stored?.version ?? 0)) {
        if (stored || ring.loaded) this.options.logger.warn({ restored: missing.map((key) => key.kid) }, 'wrote signing keys back to the store');
        return;
      }
    }
    throw new Error(`the stored key ring kept changing during ${SYNC_ATTEMPTS} attempts to sync it`);
  }

  /** Compare-and-set: saves `keys` as the version after `expectedVersion`, installs them locally if that won. */
  private async write(keys: readonly SigningKey[], expectedVersion: number): Promise<boolean> {
    const version = expectedVersion + 1;
    const document = await this.seal(keys);
    if (!(await this.options.storage.save({ version, document }, expectedVersion))) return false;
    this.ring.replaceKeys(keys);
    this.version = version;
    return true;
  }

  private async seal(keys: readonly SigningKey[]): Promise<string> {
    const { sealer } = this.options;
    const sorted = [...keys].sort((a, b) => a.signsFrom - b.signsFrom); // the ring's own order, so kid lists compare
    const portable = await Promise.all(sorted.map(exportSigningKey));
    const document: RingDocument = {
      keys: portable.map((key) => ({ ...key, privateJwk: sealer.seal(key.kid, JSON.stringify(key.privateJwk)) })),
    };
    return JSON.stringify(document);
  }

  /**
   * The stored keys; the local ones when the stored ring holds exactly the
   * local kids (no decryption on every resync). Kids, not the version, decide:
   * after a store came back empty, two instances may each have written a
   * different ring as version 1.
   */
  private async open(stored: StoredKeyRing): Promise<readonly SigningKey[]> {
    const { sealer } = this.options;
    const document = JSON.parse(stored.document) as RingDocument;
    const local = this.ring.list();
    if (local.length === document.keys.length && document.keys.every((key, i) => key.kid === local[i]?.kid)) return local;
    return Promise.all(
      document.keys.map((key) => {
        let privateJwk: PortableSigningKey['privateJwk'];
        try {
          privateJwk = JSON.parse(sealer.open(key.kid, key.privateJwk)) as PortableSigningKey['privateJwk'];
        } catch {
          throw new KeyRingSealError(key.kid);
        }
        return importSigningKey({ ...key, privateJwk });
      }),
    );
  }
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
