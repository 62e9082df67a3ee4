import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { RedisStore } from '../../../src/store/redis/store.js';
import { ManualClock } from '../../helpers/clock.js';
import { rawCommand, RedisServer, startSentinel } from '../../helpers/redis-server.js';
import { connectedStore, redisStoreConfig, silentLogger, uniqueEnvironment, untilReady } from '../../helpers/redis-store.js';
import { eventually } from '../../helpers/eventually.js';
import { RedisStore as Store } from '../../../src/store/redis/store.js';

/**
 * The store through faults on every topology, on real redis-server
 * processes: one deadline per call, everything refused at once after the
 * first call found Redis out of reach, and the revocation list written
 * back the moment a node returns without it.
 */

const clock = new ManualClock();
const later = () => clock.now() + 60 * 60_000;

describe('a stalled redis (no connection lost, no answer)', () => {
  it('answers the first call at its deadline and every call after it at once, counters from insurance, until redis answers again', async () => {
    const redis = await RedisServer.start({ args: ['--enable-debug-command', 'yes'] });
    const store = await connectedStore(redisStoreConfig({ mode: 'single', url: redis.url }, { command_timeout: 300 }), uniqueEnvironment(), clock);
    try {
      const stalled = rawCommand(redis.port, 'DEBUG SLEEP 1.5', 5_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const ref = { grantId: 'g', hash: 'h' };
      const timed = async <T>(call: () => Promise<T>) => {
        const started = performance.now();
        const outcome = await call().then(
          () => 'ok',
          (error: { code?: string }) => error.code,
        );
        return { outcome, ms: performance.now() - started };
      };
      const first = await timed(() => store.refreshTokens.find(ref));
      expect(first.outcome).toBe('SERVICE_UNAVAILABLE');
      expect(first.ms).toBeGreaterThanOrEqual(290);
      expect(first.ms).toBeLessThan(600);
      const next = await timed(() => store.revocations.add({ kind: 'token', id: 'j', expiresAt: later() }));
      expect(next.outcome).toBe('SERVICE_UNAVAILABLE');
      // At once: well under the 300 ms the first one waited (the bound leaves room for a loaded machine).
      expect(next.ms).toBeLessThan(150);
      const counted = await timed(() => store.createRateLimiter({ name: 'stall', points: 5, durationSeconds: 60 }).consume('c'));
      expect(counted.outcome).toBe('ok');
      expect(counted.ms).toBeLessThan(150);
      expect(store.health()).toMatchObject({ ready: false, reason: expect.stringContaining('out of reach') });
      expect(store.revocations.isRevoked('token', 'j')).toBe(true);
      await stalled;
      await untilReady(store);
      await expect(store.refreshTokens.find(ref)).resolves.toBeUndefined();
    } finally {
      await store.close();
      await redis.dispose();
    }
  });
});

/** A store on `redis` whose log lines the test reads (docs/monitoring.md names them for the operator). */
function loggedStore(redis: RedisServer, commandTimeout: number, storeClock = clock) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const store = new Store({ config: redisStoreConfig({ mode: 'single', url: redis.url }, { command_timeout: commandTimeout }), environment: uniqueEnvironment(), clock: storeClock, logger });
  store.connect();
  const said = (msg: string) => lines.filter((line) => line.msg === msg);
  return { store, lines, said };
}

describe('what an outage writes to the log (the two pairs of lines docs/monitoring.md names)', () => {
  it('a call that finds no answer: "redis out of reach" with the reason, then "redis answers again" with lostFor', async () => {
    const redis = await RedisServer.start({ args: ['--enable-debug-command', 'yes'] });
    const { store, said } = loggedStore(redis, 300);
    try {
      await untilReady(store);
      const stalled = rawCommand(redis.port, 'DEBUG SLEEP 1', 5_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expect(store.refreshTokens.find({ grantId: 'g', hash: 'h' })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(said('redis out of reach: writes answer 503 at once until every node answers again')).toMatchObject([
        { level: 40, reason: expect.stringMatching(/timed out/i) },
      ]);
      await stalled;
      await eventually(() => said('redis answers again').length === 1);
      expect(said('redis answers again')[0]).toMatchObject({ level: 30, lostFor: expect.stringMatching(/^\d+ ms$/) });
      // Stalled past twice command_timeout, the connection is dropped and made again: the other pair says so too.
      expect(said('redis unreachable; retrying with back-off')).toMatchObject([{ role: 'commands', err: { message: expect.stringContaining('Socket timeout') } }]);
    } finally {
      await store.close();
      await redis.dispose();
    }
  });

  it('a resync that finds no answer: "could not resync with redis; will retry" with what started it and the reason, no stack', async () => {
    const redis = await RedisServer.start();
    const resyncClock = new ManualClock();
    const { store, said } = loggedStore(redis, 300, resyncClock);
    try {
      await untilReady(store);
      redis.signal('SIGSTOP');
      try {
        // The periodic resync runs on the store's clock: moved past resync_interval, it starts one against a Redis that is frozen.
        resyncClock.advance(24 * 60 * 60_000);
        await eventually(() => said('could not resync with redis; will retry').length > 0);
      } finally {
        redis.signal('SIGCONT');
      }
      const [line] = said('could not resync with redis; will retry');
      expect(line).toMatchObject({ level: 40, reason: 'periodic resync', err: { message: 'Command timed out' } });
      // pino's error serializer writes an empty stack for a plain { message }, as on "redis unreachable".
      expect((line!.err as { stack?: string }).stack ?? '').toBe('');
      expect(said('redis out of reach: writes answer 503 at once until every node answers again')).toMatchObject([{ reason: 'resync: Command timed out' }]);
      await untilReady(store);
    } finally {
      await store.close();
      await redis.dispose();
    }
  });

  it('a connection lost: "redis unreachable; retrying with back-off" with its role and reason, then "redis connected" for each connection', async () => {
    const redis = await RedisServer.start();
    const { store, said } = loggedStore(redis, 300);
    try {
      await untilReady(store);
      expect(said('redis connected').map((line) => line.role).sort()).toEqual(['commands', 'subscriptions']);
      await redis.kill();
      await eventually(() => said('redis unreachable; retrying with back-off').length > 0);
      expect(said('redis unreachable; retrying with back-off')[0]).toMatchObject({ level: 40, role: expect.stringMatching(/^(commands|subscriptions)$/), err: { message: expect.any(String) } });
      await redis.launch();
      await eventually(() => said('redis connected').length === 4, { timeoutMs: 10_000 });
      expect(said('redis connected').slice(2).map((line) => line.role).sort()).toEqual(['commands', 'subscriptions']);
      // No store call was made meanwhile: the other pair is for calls that fail while the connection counts as up.
      expect(said('redis out of reach: writes answer 503 at once until every node answers again')).toEqual([]);
      await untilReady(store);
    } finally {
      await store.close();
      await redis.dispose();
    }
  });
});

describe('what an outage can lose, said at the time it is lost', () => {
  it('stopping while it holds revocations redis was never told logs them as an error, with their count', async () => {
    const redis = await RedisServer.start();
    const { store, said } = loggedStore(redis, 300);
    let closed = false;
    try {
      await untilReady(store);
      await redis.kill();
      await eventually(() => store.health().ready === false);
      await expect(store.revocations.add({ kind: 'token', id: 'told-nobody', expiresAt: later() })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(store.revocations.isRevoked('token', 'told-nobody')).toBe(true);
      await store.close();
      closed = true;
      expect(said('stopping with revocations redis was never told: other instances accept those tokens until they expire (each revocation was answered 503; revoke them again once redis is back)')).toMatchObject([
        { level: 50, unsent: 1 },
      ]);
    } finally {
      if (!closed) await store.close();
      await redis.dispose();
    }
  });

  it('stopping with every revocation written says nothing of the kind', async () => {
    const redis = await RedisServer.start();
    const { store, lines } = loggedStore(redis, 300);
    try {
      await untilReady(store);
      await store.revocations.add({ kind: 'token', id: 'told', expiresAt: later() });
    } finally {
      await store.close();
      await redis.dispose();
    }
    expect(lines.filter((line) => String(line.msg).startsWith('stopping with revocations'))).toEqual([]);
  });
});

describe('redis back without the revocation list', () => {
  it('is noticed within a second without any reconnection (FLUSHALL), and the list written back', async () => {
    const redis = await RedisServer.start();
    const environment = uniqueEnvironment();
    const store = await connectedStore(redisStoreConfig({ mode: 'single', url: redis.url }), environment, clock);
    try {
      await store.revocations.add({ kind: 'grant', id: 'flushed', expiresAt: later() });
      await rawCommand(redis.port, 'FLUSHALL');
      await eventually(async () => (await rawCommand(redis.port, `ZCARD tg:${environment}:{revocations}`)) === ':1\r\n', { timeoutMs: 2_000 });
    } finally {
      await store.close();
      await redis.dispose();
    }
  });

  it('keeps an instance started during the outage not ready until a running one has written the list back', async () => {
    const redis = await RedisServer.start();
    const environment = uniqueEnvironment();
    const config = redisStoreConfig({ mode: 'single', url: redis.url });
    const running = await connectedStore(config, environment, clock);
    const stores: RedisStore[] = [running];
    try {
      await running.revocations.add({ kind: 'token', id: 'revoked-before', expiresAt: later() });
      await redis.kill();
      const starting = new Store({ config, environment, clock, logger: silentLogger });
      stores.push(starting);
      starting.connect();
      // Redis comes back only once the starting store has found it away (a fixed pause could run out first on a
      // loaded machine, and a store that never saw the outage rightly takes the empty list as new).
      await eventually(() => starting.health().reason === 'redis commands connection is reconnecting', { what: 'the starting store to find redis away' });
      expect(starting.revocations.loaded).toBe(false);

      await redis.launch(); // empty: no persistence
      await eventually(() => starting.revocations.loaded, { timeoutMs: 10_000 });
      // Loaded means: with what the running instance wrote back, never the empty list redis came back with.
      expect(starting.revocations.isRevoked('token', 'revoked-before')).toBe(true);
      await untilReady(starting);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await redis.dispose();
    }
  });
});

describe('redis sentinel failing over to the replica', () => {
  it('answers writes 503 at once while the master is gone, then writes the list back to the new master (a new run id)', async () => {
    const master = await RedisServer.start();
    const replica = await RedisServer.start({ args: ['--replicaof', '127.0.0.1', String(master.port)] });
    const sentinel = await startSentinel(master, 'tgfailover');
    const environment = uniqueEnvironment();
    const config = redisStoreConfig({ mode: 'sentinel', sentinels: [sentinel.url], name: 'tgfailover' }, { command_timeout: 500 });
    const lines: Array<{ msg?: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg?: string }) });
    const store = new Store({ config, environment, clock, logger });
    store.connect();
    try {
      // The replica's first sync (a fork and a transfer) can take seconds on a loaded machine.
      await eventually(async () => (await rawCommand(replica.port, 'INFO replication')).includes('master_link_status:up'), { timeoutMs: 15_000 });
      await untilReady(store);
      await store.revocations.add({ kind: 'token', id: 'kept-across', expiresAt: later() });
      await eventually(async () => (await rawCommand(replica.port, `ZCARD tg:${environment}:{revocations}`)) === ':1\r\n', { timeoutMs: 10_000 });
      await master.kill();
      const started = performance.now();
      await expect(store.revocations.add({ kind: 'token', id: 'during', expiresAt: later() })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(performance.now() - started).toBeLessThan(600);
      // Sentinel promotes the replica (down-after 1 s); the store follows, sees a process it has not seen, and writes
      // the whole list back (a replica may have lagged), the revocation it accepted meanwhile included.
      await eventually(async () => (await rawCommand(replica.port, `ZCARD tg:${environment}:{revocations}`)) === ':2\r\n', { timeoutMs: 20_000 });
      await untilReady(store);
      expect(lines.map((line) => line.msg)).toContain('redis lost its data (restarted, flushed or failed over): wrote the revocation list back');
    } finally {
      await store.close();
      await Promise.all([sentinel.dispose(), replica.dispose(), master.dispose()]);
    }
  }, 40_000);
});
