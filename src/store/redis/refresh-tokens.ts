import { Cluster, type Redis } from 'ioredis';
import type { Clock } from '../../clock.js';
import { summariseGrant } from '../grant-summary.js';
import type { GrantFilter, GrantSummary, RefreshGrace, RefreshSuccessor, RefreshTokenRecord, RefreshTokenRef, RefreshTokenStore, ReplayReason, RotationOutcome } from '../types.js';
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

// KEYS[1] grant; ARGV old hash, successor hash, successor record, successor salt, now ms, ttl ms, grace window ms, max retries.
// The whole decision in one script, so that it is atomic across instances:
// - an unused token rotates: marked used with its successor's hash and salt, the successor saved (of two instances
//   exchanging it at once, exactly one sees it unused); expired records are pruned on the way, so a long-lived
//   grant's hash stays small;
// - a used one is a retry, answered with the same successor, while all of: within the grace window of its rotation,
//   its successor unused and alive, fewer retries than the bound (each counted here);
// - any other used one is a replay, with the first rule it broke (the caller revokes the grant).
// The same rules, in the same order, are MemoryRefreshTokens.rotate's.
const ROTATE = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return {'missing'} end
local now = tonumber(ARGV[5])
local record = cjson.decode(raw)
if record.expiresAt <= now then return {'missing'} end
if not record.usedAt then
  local fields = redis.call('HGETALL', KEYS[1])
  for i = 1, #fields, 2 do
    if cjson.decode(fields[i + 1]).expiresAt <= now then redis.call('HDEL', KEYS[1], fields[i]) end
  end
  record.usedAt = now
  record.successorHash = ARGV[2]
  record.successorSalt = ARGV[4]
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(record), ARGV[2], ARGV[3])
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[6]) then redis.call('PEXPIRE', KEYS[1], ARGV[6]) end
  return {'rotated'}
end
if not record.successorHash or not record.successorSalt or now >= record.usedAt + tonumber(ARGV[7]) then return {'reused', 'after_window'} end
local next = redis.call('HGET', KEYS[1], record.successorHash)
if not next then return {'reused', 'successor_used'} end
local successor = cjson.decode(next)
if successor.usedAt or successor.expiresAt <= now then return {'reused', 'successor_used'} end
local retries = (record.retries or 0) + 1
if retries > tonumber(ARGV[8]) then return {'reused', 'too_many'} end
record.retries = retries
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(record))
return {'retried', record.successorHash, record.successorSalt, retries}`;

/** Kept a little past expiry so that a replay just after expiry still finds the record rather than racing its deletion. */
const TTL_SLACK_MS = 60_000;

/**
 * Keys asked for per SCAN step, and grants read per pipeline: what one
 * listing holds in memory at a time, and the most commands it has in
 * flight, so that it never crowds out the request path for long.
 */
const GRANT_SCAN_COUNT = 500;

interface ScriptedClient {
  tgSaveRefreshToken(key: string, hash: string, record: string, ttlMs: number): Promise<number>;
  tgRotateRefreshToken(
    key: string,
    oldHash: string,
    successorHash: string,
    successorRecord: string,
    successorSalt: string,
    now: number,
    ttlMs: number,
    graceMs: number,
    maxRetries: number,
  ): Promise<Array<string | number>>;
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

  async rotate(old: RefreshTokenRef, successor: RefreshSuccessor, now: number, grace: RefreshGrace): Promise<RotationOutcome> {
    const { hash, salt, record } = successor;
    const reply = await this.guard(() =>
      this.scripts.tgRotateRefreshToken(this.keys.grant(old.grantId), old.hash, hash, JSON.stringify(record), salt, now, this.ttlOf(record), grace.windowMs, grace.maxRetries),
    );
    return rotationOutcomeOf(reply);
  }

  async removeGrant(grantId: string): Promise<void> {
    await this.guard(() => this.client.del(this.keys.grant(grantId)));
  }

  /**
   * SCAN (never KEYS, which blocks Redis) over every master, a batch of
   * grant keys at a time, each batch's hashes read in one pipeline. Cost:
   * O(keys in the database) for the SCAN, whose MATCH filters on the server,
   * plus one HVALS per grant: an admin operation, never a request path.
   * SCAN's guarantees apply: a grant present for the whole listing is listed
   * (rarely twice, if Redis rehashes meanwhile); one created or removed
   * meanwhile may or may not be.
   */
  async *activeGrants(filter: GrantFilter): AsyncIterable<GrantSummary> {
    for (const node of mastersOf(this.client)) {
      let cursor = '0';
      do {
        const [next, keys] = await this.guard(() => node.scan(cursor, 'MATCH', this.keys.grantPattern, 'COUNT', GRANT_SCAN_COUNT, 'TYPE', 'hash'));
        const grants = keys.length === 0 ? [] : await this.guard(() => this.readGrants(node, keys));
        const now = this.clock.now();
        for (const records of grants) {
          const summary = summariseGrant(records, now, filter);
          if (summary) yield summary;
        }
        cursor = next;
      } while (cursor !== '0');
    }
  }

  /** Every record of each grant key, read from the master that SCAN found them on. */
  private async readGrants(node: Redis, keys: readonly string[]): Promise<RefreshTokenRecord[][]> {
    const batch = node.pipeline();
    for (const key of keys) batch.hvals(key);
    const replies = (await batch.exec()) ?? [];
    return Promise.all(
      keys.map(async (key, i) => {
        const [error, values] = replies[i] ?? [new Error('no reply in the pipeline')];
        if (!error) return (values as string[]).map((raw) => JSON.parse(raw) as RefreshTokenRecord);
        // A cluster slot that moved to another master since the SCAN: the cluster client follows the redirection.
        if (!(this.client instanceof Cluster)) throw error;
        return (await this.client.hvals(key)).map((raw) => JSON.parse(raw) as RefreshTokenRecord);
      }),
    );
  }

  private ttlOf(record: RefreshTokenRecord): number {
    return Math.max(1, record.expiresAt - this.clock.now()) + TTL_SLACK_MS;
  }
}

const REPLAY_REASONS: readonly ReplayReason[] = ['after_window', 'successor_used', 'too_many'];

/** The rotation script's reply, checked: anything else is a script and a gateway out of step, never a token decision. */
function rotationOutcomeOf(reply: ReadonlyArray<string | number>): RotationOutcome {
  const [kind, first, second, third] = reply;
  if (kind === 'rotated' || kind === 'missing') return { kind };
  if (kind === 'reused' && REPLAY_REASONS.includes(first as ReplayReason)) return { kind, reason: first as ReplayReason };
  if (kind === 'retried' && typeof first === 'string' && typeof second === 'string' && typeof third === 'number') {
    return { kind, successorHash: first, salt: second, retry: third };
  }
  throw new Error(`unexpected rotation outcome ${JSON.stringify(reply)}`);
}

/** Where keys live: each master of a cluster holds its own slots; otherwise the one server (or sentinel's master). */
function mastersOf(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}
