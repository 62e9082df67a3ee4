import { randomBytes } from 'node:crypto';
import type { InstanceRecord, KeyRingStorage, StoredKeyRing } from '../types.js';
import type { RedisClient } from './connection.js';
import type { Keyspace } from './keyspace.js';

// KEYS[1] key ring; ARGV expected version, new version, document, channel. Compare-and-set.
const SAVE = `
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'document', ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[2])
return 1`;

// KEYS[1] lock; ARGV owner token. Only the holder releases.
const UNLOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

// KEYS[1] instances, KEYS[2] key ring (one slot); ARGV instance id, "<seenAt> <ring version>".
// The heartbeat answers the stored version, so that an instance that missed a change notice learns of it.
const ACKNOWLEDGE = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return tonumber(redis.call('HGET', KEYS[2], 'version') or '0')`;

interface ScriptedClient {
  tgSaveKeyRing(key: string, expected: number, version: number, document: string, channel: string): Promise<number>;
  tgUnlock(key: string, owner: string): Promise<number>;
  tgAcknowledge(instances: string, keyRing: string, id: string, record: string): Promise<number>;
}

type Guard = <T>(operation: () => Promise<T>) => Promise<T>;

export function defineKeyRingScripts(client: RedisClient): void {
  client.defineCommand('tgSaveKeyRing', { numberOfKeys: 1, lua: SAVE });
  client.defineCommand('tgUnlock', { numberOfKeys: 1, lua: UNLOCK });
  client.defineCommand('tgAcknowledge', { numberOfKeys: 2, lua: ACKNOWLEDGE });
}

/** What the store adds to the ring's storage: it sees the whole keyspace and holds the revocation mirror. */
export interface StoreSide {
  /** Whether a new instance may create a ring in a store that holds none. */
  mayCreateRing(): Promise<boolean>;
  /** Whether this instance holds the whole revocation list (said in its heartbeat, for instances starting after a loss). */
  holdsList(): boolean;
}

/** One instance's heartbeat as stored: "<seenAt> <ring version> <1 if it holds the whole revocation list>". */
export function parseHeartbeat(value: string): { seenAt: number; ringVersion: number; holdsList: boolean } {
  const [seenAt = 0, ringVersion = 0, holdsList = 0] = value.split(' ').map(Number);
  return { seenAt, ringVersion, holdsList: holdsList === 1 };
}

/**
 * The sealed key ring in one Redis hash, its rotation lock, change notices
 * by pub/sub, and the instances' heartbeats (each with the ring version it
 * installed) in a hash beside it.
 */
export class RedisKeyRingStorage implements KeyRingStorage {
  private readonly listeners: Array<() => void> = [];
  private readonly scripts: ScriptedClient;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keyspace,
    private readonly guard: Guard,
    readonly instanceId: string,
    private readonly store: StoreSide,
  ) {
    this.scripts = client as unknown as ScriptedClient;
  }

  async load(): Promise<StoredKeyRing | undefined> {
    const [version, document] = await this.guard(() => this.client.hmget(this.keys.keyRing, 'version', 'document'));
    return version && document ? { version: Number(version), document } : undefined;
  }

  async save(ring: StoredKeyRing, expectedVersion: number): Promise<boolean> {
    const { keyRing, keyRingChannel } = this.keys;
    const saved = await this.guard(() => this.scripts.tgSaveKeyRing(keyRing, expectedVersion, ring.version, ring.document, keyRingChannel));
    return saved === 1;
  }

  async tryLock(ttlMs: number): Promise<(() => Promise<void>) | undefined> {
    const owner = randomBytes(16).toString('base64url');
    const taken = await this.guard(() => this.client.set(this.keys.keyRingLock, owner, 'PX', ttlMs, 'NX'));
    if (taken !== 'OK') return undefined;
    return async () => {
      await this.guard(() => this.scripts.tgUnlock(this.keys.keyRingLock, owner));
    };
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  async acknowledge(ringVersion: number, now: number): Promise<number> {
    const { instances, keyRing } = this.keys;
    const record = `${now} ${ringVersion} ${this.store.holdsList() ? 1 : 0}`;
    return this.guard(() => this.scripts.tgAcknowledge(instances, keyRing, this.instanceId, record));
  }

  async instances(now: number, horizonMs: number): Promise<InstanceRecord[]> {
    const all = await this.guard(() => this.client.hgetall(this.keys.instances));
    const records: InstanceRecord[] = [];
    const forgotten: string[] = [];
    for (const [id, value] of Object.entries(all)) {
      const { seenAt, ringVersion } = parseHeartbeat(value);
      if (now - seenAt > horizonMs) forgotten.push(id);
      else records.push({ id, seenAt, ringVersion });
    }
    // Instances that stopped without saying so (SIGKILL, a lost machine) are forgotten once past the horizon.
    if (forgotten.length > 0) await this.guard(() => this.client.hdel(this.keys.instances, ...forgotten)).catch(() => undefined);
    return records;
  }

  async depart(): Promise<void> {
    await this.guard(() => this.client.hdel(this.keys.instances, this.instanceId));
  }

  mayCreateRing(): Promise<boolean> {
    return this.store.mayCreateRing();
  }

  /** A pub/sub notice that some instance saved a new version. */
  changed(): void {
    for (const listener of this.listeners) listener();
  }
}
