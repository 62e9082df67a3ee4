import { randomBytes } from 'node:crypto';
import type { KeyRingStorage, StoredKeyRing } from '../types.js';
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

interface ScriptedClient {
  tgSaveKeyRing(key: string, expected: number, version: number, document: string, channel: string): Promise<number>;
  tgUnlock(key: string, owner: string): Promise<number>;
}

type Guard = <T>(operation: () => Promise<T>) => Promise<T>;

export function defineKeyRingScripts(client: RedisClient): void {
  client.defineCommand('tgSaveKeyRing', { numberOfKeys: 1, lua: SAVE });
  client.defineCommand('tgUnlock', { numberOfKeys: 1, lua: UNLOCK });
}

/** The sealed key ring in one Redis hash, its rotation lock, and change notices by pub/sub. */
export class RedisKeyRingStorage implements KeyRingStorage {
  private readonly listeners: Array<() => void> = [];
  private readonly scripts: ScriptedClient;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keyspace,
    private readonly guard: Guard,
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

  /** A pub/sub notice that some instance saved a new version. */
  changed(): void {
    for (const listener of this.listeners) listener();
  }
}
