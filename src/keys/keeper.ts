import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Logger } from '../log/logger.js';
import type { KeyRingStorage, StoredKeyRing } from '../store/types.js';
import { confirmations, Heartbeat, type InstanceConfirmation } from './acknowledgements.js';
import type { KeyRing, RotationPlan } from './key-ring.js';
import { openRing, rememberDropped, sealRing } from './ring-document.js';
import type { KeySealer } from './sealing.js';
import type { SigningKey } from './signing-key.js';

export { KeyRingSealError } from './ring-document.js';

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
  /** How long a rotation now waits for the lock held by another instance before it gives up (default 5 s). */
  lockWaitMs?: number;
  /** How long a rotation now waits for every live instance to acknowledge the new ring (default 5 s). */
  ackWaitMs?: number;
}

/** What a rotation now did, for the admin API's answer. */
export interface ManualRotation {
  /** The key that takes over, signing from `signsFrom`: now, or once it has been published long enough. */
  readonly kid: string;
  readonly signsFrom: number;
  /** The key that was signing, and goes on signing until `signsFrom`. */
  readonly previousKid: string;
  /** The key after it, published now at the latest, signing one rotation interval later. */
  readonly nextKid: string;
  readonly nextSignsFrom: number;
  /** Every published kid afterwards, oldest first. */
  readonly published: readonly string[];
  /** Kids no longer published: keys that never signed and were replaced, and with dropPrevious every key that signed. */
  readonly dropped: readonly string[];
  /** A brand-new key signing at once (the emergency), rather than the published next one. */
  readonly immediate: boolean;
  /** False when a rotation already asked for had set all this (nothing written). */
  readonly changed: boolean;
  /** Which instances have installed the new ring. */
  readonly instances: InstanceConfirmation;
}

export interface RotateNowOptions {
  /** Unpublish every key that signed before (a leaked key): every token they signed stops verifying. */
  readonly dropPrevious: boolean;
  /**
   * Sign with a brand-new key at once, instead of the published next key
   * once it may (an emergency): resource servers holding a cached JWKS
   * refuse the new tokens until they fetch it again.
   */
  readonly immediate?: boolean;
}

const SYNC_ATTEMPTS = 3;
const NOT_LOADED_RETRY_MS = 1_000;
const MAX_SLEEP_MS = 60_000;
/** A rotation now asks for the lock this often while another instance holds it. */
const LOCK_STEP_MS = 100;
const ACK_WAIT_MS = 5_000;
/** While waiting for another instance to write the ring, the store is asked again this often. */
const RING_WAIT_STEP_MS = 100;

/**
 * Keeps the local key ring and the stored one the same. Every instance reads
 * the stored ring (at start, when told it changed, and on every resync); only
 * the instance holding the lock adds or drops keys, and every write is a
 * compare-and-set on the ring's version, so two writers can never both win.
 *
 * A store that lost the ring (Redis restarted without persistence) gets the
 * local keys written back, merged with whatever is there, so that every
 * access token already issued still verifies.
 *
 * Every instance acknowledges each ring it installs in its heartbeat; a
 * rotation now answers only once every live instance has (or says which
 * has not), so that a dropped key is neither signed with nor accepted
 * anywhere once the answer is out.
 */
export class KeyRingKeeper {
  private version = 0;
  /** Kids removed on purpose, as the stored ring last said (see ring-document.ts). */
  private dropped: readonly string[] = [];
  private busyUntil = 0;
  private syncing: Promise<void> | undefined;
  private syncAgain = false;
  private waitingNoted = false;
  private readonly heartbeat: Heartbeat;

  constructor(private readonly options: KeeperOptions) {
    const behind = (reason: string) => () => {
      this.sync().catch((error: unknown) => options.logger.warn({ err: error, reason }, 'could not load the changed key ring; the heartbeat will retry'));
    };
    options.storage.onChange(behind('change notice'));
    this.heartbeat = new Heartbeat({
      storage: options.storage,
      logger: options.logger,
      installedVersion: () => (this.ring.loaded ? this.version : 0),
      onBehind: behind('heartbeat'),
    });
  }

  /** Starts the heartbeat (a running gateway; tests that drive a keeper by hand need not). */
  start(): void {
    this.heartbeat.start();
  }

  /**
   * Heartbeats now rather than within the second: after a reconnection, a
   * Redis that restarted without persistence has forgotten every instance,
   * and a rotation in that second would not know to wait for this one.
   */
  announce(): Promise<void> {
    return this.heartbeat.beat();
  }

  /** Stops the heartbeat and tells the other instances this one has left. */
  stop(): Promise<void> {
    return this.heartbeat.stop();
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
      const basedOn = this.version; // as in rotateNow: the compare-and-set is against the ring these keys come from
      const keys = await ring.maintainedKeys();
      if (!keys) return false;
      if (!(await this.write(keys, basedOn))) {
        logger.warn('the stored key ring changed under the rotation lock; reloading it');
        await this.syncOnce();
        return false;
      }
      return true;
    } finally {
      await release().catch(() => undefined);
    }
  }

  /**
   * Rotates now, as the admin API asks: under the same lock and with the
   * same compare-and-set as `maintain`, so it cannot race a scheduled
   * rotation on any instance. The published next key takes over as soon as
   * it may (KeyRing.promotion); with `immediate`, a brand-new key is
   * published and acknowledged by every live instance first, then signs at
   * once (KeyRing.emergencyPublication, emergencyTakeover). The answer
   * comes once every live instance has acknowledged the new ring, or the
   * wait is over, and says which instances did not.
   */
  async rotateNow(options: RotateNowOptions): Promise<ManualRotation> {
    const { ring } = this.options;
    if (!ring.loaded) throw new GatewayError('SERVICE_UNAVAILABLE', { detail: 'signing keys not loaded yet' });
    const release = await this.waitForLock();
    try {
      await this.syncOnce(); // the latest stored ring: rotate what every instance has, not a stale local copy
      const before = ring.list().map((key) => key.kid);
      let plan: RotationPlan;
      if (options.immediate) {
        const { keys, fresh } = await ring.emergencyPublication();
        await this.writeUnderLock(keys, this.dropped);
        // Every live instance holds the new key before any signs with it.
        await this.confirmInstalled();
        plan = await ring.emergencyTakeover(fresh.kid, options.dropPrevious);
      } else {
        plan = await ring.promotion(options.dropPrevious);
      }
      const removed = before.filter((kid) => !plan.keys.some((key) => key.kid === kid));
      if (plan.changed) await this.writeUnderLock(plan.keys, rememberDropped(this.dropped, removed));
      const instances = await this.confirmInstalled();
      return {
        kid: plan.successor.kid,
        signsFrom: plan.successor.signsFrom,
        previousKid: plan.current.kid,
        nextKid: plan.next.kid,
        nextSignsFrom: plan.next.signsFrom,
        published: ring.list().map((key) => key.kid),
        dropped: removed,
        immediate: options.immediate === true,
        changed: plan.changed,
        instances,
      };
    } finally {
      await release().catch(() => undefined);
    }
  }

  /** This instance's acknowledgement, then every live instance's, for the ring installed now. */
  private async confirmInstalled(): Promise<InstanceConfirmation> {
    await this.heartbeat.beat();
    return confirmations(this.options.storage, this.version, this.options.ackWaitMs ?? ACK_WAIT_MS);
  }

  /** Compare-and-set against the ring just synced (read before any await: this.version moves if another write lands). */
  private async writeUnderLock(keys: readonly SigningKey[], dropped: readonly string[]): Promise<void> {
    const basedOn = this.version;
    if (!(await this.write(keys, basedOn, dropped))) {
      await this.syncOnce();
      throw new GatewayError('SERVICE_UNAVAILABLE', { detail: 'the stored key ring changed under the rotation lock; try again' });
    }
  }

  /** The rotation lock, waiting in steps while a scheduled rotation elsewhere holds it (a matter of milliseconds). */
  private async waitForLock(): Promise<() => Promise<void>> {
    // Counted in attempts, each step waited on the clock's timer: a test advances its clock step by step.
    const attempts = Math.max(1, Math.ceil((this.options.lockWaitMs ?? 5_000) / LOCK_STEP_MS));
    for (let attempt = 1; ; attempt++) {
      const release = await this.options.storage.tryLock(this.options.lockTtlMs ?? 30_000);
      if (release) return release;
      if (attempt >= attempts) {
        throw new GatewayError('SERVICE_UNAVAILABLE', { detail: 'another instance has been changing the key ring for seconds; try again' });
      }
      await new Promise<void>((resolve) => this.options.clock.setTimer(resolve, LOCK_STEP_MS));
    }
  }

  private async syncOnce(): Promise<void> {
    const { ring } = this.options;
    for (let attempt = 0; attempt < SYNC_ATTEMPTS; attempt++) {
      const stored = await this.loadOrAwait();
      const { keys: storedKeys, dropped: storedDropped } = stored ? await openRing(stored, this.ring, this.options.sealer) : { keys: [], dropped: [] };
      // Kept from both sides: a store that came back empty has forgotten what a rotation now removed.
      const dropped = rememberDropped(storedDropped, this.dropped);
      // Keys this instance still needs but the store no longer has (it came back empty, or a racing writer dropped
      // them), except those removed on purpose by a rotation now.
      const storedKids = new Set(storedKeys.map((key) => key.kid));
      const missing = ring.loaded ? ring.plan().kept.filter((key) => !storedKids.has(key.kid) && !dropped.includes(key.kid)) : [];
      if (stored && missing.length === 0) {
        this.install(storedKeys, stored.version, dropped);
        return;
      }
      const keys = stored || ring.loaded ? [...storedKeys, ...missing] : await ring.initialKeys();
      if (await this.write(keys, stored?.version ?? 0, dropped)) {
        // Only a restore is news; the first ring of a new environment is not (ring.loaded is true by now: the write installed it).
        if (missing.length > 0) this.options.logger.warn({ restored: missing.map((key) => key.kid) }, 'wrote signing keys back to the store');
        return;
      }
    }
    throw new Error(`the stored key ring kept changing during ${SYNC_ATTEMPTS} attempts to sync it`);
  }

  /**
   * The stored ring. While there is none and this instance has none either,
   * it creates one only when the store says it may: otherwise the
   * environment had a ring that the store lost (or another instance is
   * creating it this moment), which a running instance writes back within a
   * heartbeat; a fresh ring would take over from keys resource servers
   * already hold. The store bounds the wait (mayCreateRing turns true).
   */
  private async loadOrAwait(): Promise<StoredKeyRing | undefined> {
    const { ring, storage, logger } = this.options;
    for (;;) {
      const stored = await storage.load();
      if (stored || ring.loaded || (await storage.mayCreateRing())) return stored;
      if (!this.waitingNoted) logger.info('the store has no key ring yet another instance should have one: waiting for it to be written');
      this.waitingNoted = true;
      // Real time: the wait is for another instance to write over Redis, which the injected clock does not drive.
      await sleep(RING_WAIT_STEP_MS);
    }
  }

  /** Compare-and-set: saves `keys` as the version after `expectedVersion`, installs them locally if that won. */
  private async write(keys: readonly SigningKey[], expectedVersion: number, dropped = this.dropped): Promise<boolean> {
    const version = expectedVersion + 1;
    const document = await sealRing(keys, dropped, this.options.sealer);
    if (!(await this.options.storage.save({ version, document }, expectedVersion))) return false;
    this.install(keys, version, dropped);
    return true;
  }

  /** Installs a ring version locally and acknowledges it at once (a rotation elsewhere may be waiting for that). */
  private install(keys: readonly SigningKey[], version: number, dropped: readonly string[]): void {
    const changed = this.ring.replaceKeys(keys) || version !== this.version;
    this.version = version;
    this.dropped = dropped;
    if (changed) void this.heartbeat.beat();
  }
}
