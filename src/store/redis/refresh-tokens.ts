import type { Clock } from '../../clock.js';
import type { RefreshTokenRecord, RefreshTokenRef, RefreshTokenStore, RotationOutcome } from '../types.js';
import type { RedisClient } from './connection.js';
import type { Keyspace } from './keyspace.js';

/**
 * A grant is one hash (token hash -> JSON record); its key expires with the
 * last of its tokens. Times are the gateway's clock, passed in: Redis's own
 * clock only bounds how long a key is kept (a TTL slightly past the record's
 * expiry), never whether a token is valid.
 */

// KEYS[1] grant; ARGV hash, record, ttl ms
const SAVE = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1`;

// KEYS[1] grant; ARGV old hash, new hash, new record, now ms, ttl ms.
// Check-and-set in one script: of two instances exchanging the same token at once, exactly one sees it unused.
// Expired records are pruned on the way, so a long-lived grant's hash stays small.
const ROTATE = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 'missing' end
local now = tonumber(ARGV[4])
local record = cjson.decode(raw)
if record.expiresAt <= now then return 'missing' end
if record.usedAt then return 'reused' end
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  if cjson.decode(fields[i + 1]).expiresAt <= now then redis.call('HDEL', KEYS[1], fields[i]) end
end
record.usedAt = now
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(record), ARGV[2], ARGV[3])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return 'rotated'`;

/** Kept a little past expiry so that a replay just after expiry still finds the record rather than racing its deletion. */
const TTL_SLACK_MS = 60_000;

interface ScriptedClient {
  tgSaveRefreshToken(key: string, hash: string, record: string, ttlMs: number): Promise<number>;
  tgRotateRefreshToken(key: string, oldHash: string, newHash: string, record: string, now: number, ttlMs: number): Promise<string>;
}

export function defineRefreshTokenScripts(client: RedisClient): void {
  client.defineCommand('tgSaveRefreshToken', { numberOfKeys: 1, lua: SAVE });
  client.defineCommand('tgRotateRefreshToken', { numberOfKeys: 1, lua: ROTATE });
}

export class RedisRefreshTokens implements RefreshTokenStore {
  private readonly scripts: ScriptedClient;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keyspace,
    private readonly clock: Clock,
    private readonly guard: <T>(operation: () => Promise<T>) => Promise<T>,
  ) {
    this.scripts = client as unknown as ScriptedClient;
  }

  async save(ref: RefreshTokenRef, record: RefreshTokenRecord): Promise<void> {
    await this.guard(() => this.scripts.tgSaveRefreshToken(this.keys.grant(ref.grantId), ref.hash, JSON.stringify(record), this.ttlOf(record)));
  }

  async find(ref: RefreshTokenRef): Promise<RefreshTokenRecord | undefined> {
    const raw = await this.guard(() => this.client.hget(this.keys.grant(ref.grantId), ref.hash));
    if (raw === null) return undefined;
    const record = JSON.parse(raw) as RefreshTokenRecord;
    return record.expiresAt > this.clock.now() ? record : undefined;
  }

  async rotate(old: RefreshTokenRef, successorHash: string, successor: RefreshTokenRecord, now: number): Promise<RotationOutcome> {
    const kind = await this.guard(() =>
      this.scripts.tgRotateRefreshToken(this.keys.grant(old.grantId), old.hash, successorHash, JSON.stringify(successor), now, this.ttlOf(successor)),
    );
    if (kind !== 'rotated' && kind !== 'reused' && kind !== 'missing') throw new Error(`unexpected rotation outcome ${kind}`);
    return { kind };
  }

  async removeGrant(grantId: string): Promise<void> {
    await this.guard(() => this.client.del(this.keys.grant(grantId)));
  }

  private ttlOf(record: RefreshTokenRecord): number {
    return Math.max(1, record.expiresAt - this.clock.now()) + TTL_SLACK_MS;
  }
}
