import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log/logger.js';
import { HEARTBEAT_INTERVAL_MS, INSTANCE_HORIZON_MS, isLive } from '../store/instances.js';
import type { KeyRingStorage } from '../store/types.js';

/** Which instances have installed a ring version, and which could not be shown to have. */
export interface InstanceConfirmation {
  /** Live instances that acknowledged the version (or a later one). */
  readonly confirmed: readonly string[];
  /** Instances heard from within the horizon that did not: still serving with an older ring, as far as anyone knows. */
  readonly unconfirmed: readonly UnconfirmedInstance[];
}

export interface UnconfirmedInstance {
  readonly instance: string;
  /** Its last heartbeat (epoch ms). */
  readonly lastSeen: number;
  /** Heard from within the live window: it was waited for, and did not answer in time. Otherwise it is out of reach. */
  readonly live: boolean;
  /** The ring version it last said it had. */
  readonly ringVersion: number;
}

/** Between two looks at the acknowledgements while waiting for them. */
const ACK_STEP_MS = 50;

/*
 * Heartbeats, liveness and the wait for acknowledgements run on real time
 * (Date.now, setTimeout), not on the injected Clock: they measure whether
 * processes are alive and answering, as socket timeouts do, while the Clock
 * decides what the keys are (which a test moves by a day at once).
 */

/**
 * Waits, at most `waitMs`, until every live instance has acknowledged ring
 * `version`; an instance that is not live (no heartbeat within the live
 * window: stopped without saying so, or cut off from Redis) is not waited
 * for, and is reported.
 */
export async function confirmations(storage: KeyRingStorage, version: number, waitMs: number): Promise<InstanceConfirmation> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const instances = await storage.instances(Date.now(), INSTANCE_HORIZON_MS);
    const now = Date.now();
    const behind = instances.filter((instance) => instance.ringVersion < version);
    if (now >= deadline || !behind.some((instance) => isLive(instance.seenAt, now))) {
      return {
        // Only a live instance confirms. One out of reach that had the version already (a rotation that changed
        // nothing, an instance killed since) did not answer, and has nothing left to install: in neither list.
        confirmed: instances.filter((instance) => instance.ringVersion >= version && isLive(instance.seenAt, now)).map((instance) => instance.id).sort(),
        unconfirmed: behind
          .map(({ id, seenAt, ringVersion }) => ({ instance: id, lastSeen: seenAt, live: isLive(seenAt, now), ringVersion }))
          .sort((a, b) => a.instance.localeCompare(b.instance)),
      };
    }
    await sleep(ACK_STEP_MS);
  }
}

export interface HeartbeatOptions {
  storage: KeyRingStorage;
  logger: Logger;
  /** The ring version this instance has installed (0: none yet). */
  installedVersion: () => number;
  /** The stored ring differs from the installed one, or none is installed: sync. */
  onBehind: () => void;
}

/**
 * This instance's heartbeat: every second it says it is alive and which
 * ring version it has installed, and learns the stored version in the same
 * round trip, so that an instance that missed a change notice (its
 * subscription dropped) catches up within a beat instead of at the next
 * resync. Also sent at once after every install: that is the
 * acknowledgement a rotation waits for.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: HeartbeatOptions) {}

  start(): void {
    this.arm();
  }

  /** One beat now; resolves when the store has it (or failed: the next beat retries). None once stopped. */
  async beat(): Promise<void> {
    // A ring installed after stop() (a change notice before the store closes) would write back the record stop()
    // removed, and every rotation for the next 10 minutes would name this instance as unconfirmed.
    if (this.stopped) return;
    const { storage, installedVersion, onBehind } = this.options;
    const installed = installedVersion();
    // Unreachable store: nothing to catch up with until it answers (its reconnection reloads the ring anyway).
    const stored = await storage.acknowledge(installed, Date.now()).catch(() => undefined);
    if (stored !== undefined && (installed === 0 || stored !== installed)) onBehind();
  }

  /** Stops beating and removes this instance's record: a rotation must not wait for an instance that has left. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.options.storage.depart().catch((error: unknown) => this.options.logger.debug({ err: error }, 'could not remove this instance from the heartbeats'));
  }

  /** Re-armed once a beat is done, never while one runs: beats never pile up behind a slow store. */
  private arm(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.beat().finally(() => this.arm());
    }, HEARTBEAT_INTERVAL_MS).unref();
  }
}
