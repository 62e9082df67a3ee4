import type { Clock } from '../../clock.js';
import { MemoryRevocations, revocationMember } from '../memory.js';
import type { RevocationEntry, RevocationKind, RevocationList } from '../types.js';
import type { RedisClient } from './connection.js';
import type { Keyspace } from './keyspace.js';

// KEYS[1] revocations; ARGV member, expiresAt, channel.
// GT: a revocation is never shortened. Published from the script so that no
// instance can see the entry in Redis before the message is on its way.
const ADD = `
redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[2] .. ' ' .. ARGV[1])
return 1`;

/** Published on the revocation channel after a write-back: every instance reloads the whole list. */
export const RESTORED_NOTICE = 'restored';

const SCAN_COUNT = 5_000;
const WRITE_BACK_CHUNK = 1_000;

type Guard = <T>(operation: () => Promise<T>) => Promise<T>;

interface ScriptedClient {
  tgRevoke(key: string, member: string, expiresAt: number, channel: string): Promise<number>;
}

export function defineRevocationScripts(client: RedisClient): void {
  client.defineCommand('tgRevoke', { numberOfKeys: 1, lua: ADD });
}

/**
 * The revocation list in Redis (a sorted set scored by expiry) with a local
 * mirror that answers every Bearer check. The mirror is filled at start,
 * kept current by pub/sub, and merged with a full scan on every resync and
 * reconnect, which closes whatever gap pub/sub left. Entries only ever
 * merge in (revocation is never undone), so a late or repeated message is
 * harmless.
 */
export class RedisRevocations implements RevocationList {
  private readonly mirror: MemoryRevocations;
  /** Accepted locally while Redis was out of reach; written as soon as it is back. */
  private readonly unsent = new Map<string, number>();
  private wholeListLoaded = false;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keyspace,
    private readonly clock: Clock,
    private readonly guard: Guard,
  ) {
    this.mirror = new MemoryRevocations(clock);
  }

  async add(entry: RevocationEntry): Promise<void> {
    const member = revocationMember(entry.kind, entry.id);
    // This instance refuses the token at once, whatever happens to the write.
    this.mirror.remember(member, entry.expiresAt);
    try {
      await this.guard(() => this.write(member, entry.expiresAt));
    } catch (error) {
      this.unsent.set(member, Math.max(this.unsent.get(member) ?? 0, entry.expiresAt));
      throw error;
    }
  }

  isRevoked(kind: RevocationKind, id: string): boolean {
    return this.mirror.isRevoked(kind, id);
  }

  get size(): number {
    return this.mirror.size;
  }

  get loaded(): boolean {
    return this.wholeListLoaded;
  }

  /** The store loaded (or restored) the whole list into the mirror; from now on the mirror answers, Redis or not. */
  markLoaded(): void {
    this.wholeListLoaded = true;
  }

  /** A pub/sub message from any instance (this one included); RESTORED_NOTICE is the store's to handle. */
  receive(message: string): void {
    const space = message.indexOf(' ');
    const expiresAt = Number(message.slice(0, space));
    if (space > 0 && Number.isFinite(expiresAt)) this.mirror.remember(message.slice(space + 1), expiresAt);
  }

  /** Merges every live entry in Redis into the mirror and forgets expired ones on both sides. */
  async resync(): Promise<void> {
    const now = this.clock.now();
    await this.client.zremrangebyscore(this.keys.revocations, '-inf', now);
    let cursor = '0';
    do {
      // ZSCAN returns every element present for the whole scan; entries added meanwhile arrive by pub/sub.
      const [next, flat] = await this.client.zscan(this.keys.revocations, cursor, 'COUNT', SCAN_COUNT);
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const expiresAt = Number(flat[i + 1]);
        if (expiresAt > now) this.mirror.remember(flat[i] as string, expiresAt);
      }
      cursor = next;
    } while (cursor !== '0');
    this.mirror.sweep();
  }

  /** Revocations accepted while Redis was unreachable and not written yet. */
  get unsentCount(): number {
    return this.unsent.size;
  }

  /** Writes what was accepted while Redis was unreachable. */
  async flushUnsent(): Promise<number> {
    const entries = [...this.unsent];
    for (const [member, expiresAt] of entries) {
      await this.write(member, expiresAt);
      // Unless a longer revocation of the same member arrived while this one was written.
      if (this.unsent.get(member) === expiresAt) this.unsent.delete(member);
    }
    return entries.length;
  }

  /** Writes the whole mirror back: Redis came back empty (or failed over to a replica that lagged). */
  async writeBack(): Promise<number> {
    let written = 0;
    let batch = this.client.pipeline();
    for (const [member, expiresAt] of this.mirror.live()) {
      batch.zadd(this.keys.revocations, 'GT', expiresAt, member);
      if (++written % WRITE_BACK_CHUNK === 0) {
        await execOrThrow(batch);
        batch = this.client.pipeline();
      }
    }
    if (written % WRITE_BACK_CHUNK !== 0) await execOrThrow(batch);
    return written;
  }

  /**
   * When some instance marked the list whole (epoch ms, by its clock), or
   * undefined: the node lost its data since, or the environment is new.
   */
  async keptSince(): Promise<number | undefined> {
    const value = await this.client.get(this.keys.revocationsKept);
    return value === null ? undefined : Number(value) || 0;
  }

  /**
   * Marks the list as whole: after a write-back (then every instance is told
   * to reload it) or when a starting instance adopts the list as it is.
   */
  async markKept(restored: boolean): Promise<void> {
    await this.client.set(this.keys.revocationsKept, String(Date.now()));
    if (restored) await this.client.publish(this.keys.revocationChannel, RESTORED_NOTICE);
  }

  private async write(member: string, expiresAt: number): Promise<void> {
    await (this.client as unknown as ScriptedClient).tgRevoke(this.keys.revocations, member, expiresAt, this.keys.revocationChannel);
  }
}

async function execOrThrow(batch: ReturnType<RedisClient['pipeline']>): Promise<void> {
  const results = (await batch.exec()) ?? [];
  const failure = results.find(([error]) => error);
  if (failure?.[0]) throw failure[0];
}
