import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient, type RedisClient } from '../../../src/store/redis/connection.js';
import { inspectServers, isTooOld, type EvictionCheck } from '../../../src/store/redis/servers.js';
import { eventually } from '../../helpers/eventually.js';
import { rawCommand, RedisServer } from '../../helpers/redis-server.js';
import { redisStoreConfig } from '../../helpers/redis-store.js';

/**
 * What the store learns from the Redis processes themselves
 * (src/store/redis/servers.ts): their run ids (a new one is a restart or a
 * failover, so the revocation list may be gone), whether they are recent
 * enough, and whether their eviction policy could drop revocations without
 * notice. On real redis-server processes; the cluster's masters are found
 * by probe.ts's serverConnections, tested in probe.test.ts.
 */

const opened: RedisClient[] = [];
const servers: RedisServer[] = [];
afterAll(async () => {
  for (const client of opened) client.disconnect();
  await Promise.all(servers.map((server) => server.dispose()));
});

async function serverAndClient(args: readonly string[] = []): Promise<{ redis: RedisServer; client: RedisClient }> {
  const redis = await RedisServer.start({ args });
  servers.push(redis);
  const client = createRedisClient(redisStoreConfig({ mode: 'single', url: redis.url }));
  opened.push(client);
  client.on('error', () => undefined);
  await client.connect();
  return { redis, client };
}

function evictionCheck() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const check: EvictionCheck = { done: false, logger };
  return { check, warnings: () => lines.filter((line) => line.level === 40) };
}

const runIdOf = async (port: number) => /run_id:(\w+)/.exec(await rawCommand(port, 'INFO server'))?.[1];

describe('the redis processes behind the store', () => {
  let redis: RedisServer;
  let client: RedisClient;
  beforeAll(async () => {
    ({ redis, client } = await serverAndClient());
  });

  it.each([
    ['5.0.7', true],
    ['6.0.16', true],
    ['6.2.0', false],
    ['6.2', false],
    ['6.10.1', false],
    ['7.0.15', false],
    ['10.0.0', false],
    ['0', true],
  ])('needs redis 6.2 (ZADD GT, so that a revocation is never shortened): %s too old: %s', (version, tooOld) => {
    expect(isTooOld(version)).toBe(tooOld);
  });

  it('names the run id of the server, and finds nothing wrong with a recent one', async () => {
    const { runIds, problem } = await inspectServers(client, evictionCheck().check);
    expect([...runIds]).toEqual([await runIdOf(redis.port)]);
    expect(problem).toBeUndefined();
  });

  it.each([
    ['noeviction', false],
    ['allkeys-lru', true],
    ['volatile-ttl', true],
  ])('warns when the eviction policy could drop revocations without notice: %s -> %s', async (policy, warns) => {
    expect(await rawCommand(redis.port, `CONFIG SET maxmemory-policy ${policy}`)).toBe('+OK\r\n');
    const { check, warnings } = evictionCheck();
    await inspectServers(client, check);
    expect(check.done).toBe(true);
    expect(warnings()).toEqual(
      warns ? [expect.objectContaining({ maxmemoryPolicy: policy, msg: 'redis may evict keys: revocations could be lost without notice; use maxmemory-policy noeviction' })] : [],
    );
  });

  it('looks at the eviction policy once per store, not at every reconciliation', async () => {
    expect(await rawCommand(redis.port, 'CONFIG SET maxmemory-policy noeviction')).toBe('+OK\r\n');
    const { check, warnings } = evictionCheck();
    await inspectServers(client, check);
    expect(await rawCommand(redis.port, 'CONFIG SET maxmemory-policy allkeys-lru')).toBe('+OK\r\n');
    await inspectServers(client, check);
    expect(warnings()).toEqual([]);
    expect(await rawCommand(redis.port, 'CONFIG SET maxmemory-policy noeviction')).toBe('+OK\r\n');
  });

  it('sees a new run id once the server restarted (it came back empty)', async () => {
    const before = await inspectServers(client, evictionCheck().check);
    await redis.restart();
    await eventually(() => client.status === 'ready', { what: () => `the client to reconnect (${client.status})` });
    const after = await inspectServers(client, evictionCheck().check);
    expect([...after.runIds]).toEqual([await runIdOf(redis.port)]);
    expect([...after.runIds]).not.toEqual([...before.runIds]);
  });
});

describe('a redis whose CONFIG command is not allowed (as on managed services)', () => {
  it('inspects it all the same, without a warning it could not back', async () => {
    const { redis, client } = await serverAndClient(['--rename-command', 'CONFIG', '']);
    expect(await rawCommand(redis.port, 'CONFIG GET maxmemory-policy')).toMatch(/^-ERR unknown command 'CONFIG'/);
    const { check, warnings } = evictionCheck();
    const { runIds, problem } = await inspectServers(client, check);
    expect(runIds.size).toBe(1);
    expect(problem).toBeUndefined();
    expect(warnings()).toEqual([]);
  });
});
