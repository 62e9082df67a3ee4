import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { pino } from 'pino';
import type { Clock } from '../../src/clock.js';
import type { RedisStoreConfig, RedisTopology } from '../../src/config/store-schema.js';
import { RedisStore } from '../../src/store/redis/store.js';
import { eventually } from './eventually.js';
import { RedisServer } from './redis-server.js';

export const silentLogger = pino({ level: 'silent' });

export function redisStoreConfig(topology: RedisTopology, overrides: Partial<RedisStoreConfig> = {}): RedisStoreConfig {
  return { kind: 'redis', topology, command_timeout: 1_000, connect_timeout: 1_000, resync_interval: 30_000, max_pending: 1_000, ...overrides };
}

/** A fresh environment name per test: stores of different tests never see each other's keys. */
export const uniqueEnvironment = (): string => `test-${randomBytes(6).toString('hex')}`;

export async function untilReady(store: RedisStore, timeoutMs = 10_000): Promise<void> {
  await eventually(() => store.health().ready, { timeoutMs, what: () => `the redis store to be ready (${store.health().reason})` });
}

/** A connected RedisStore, ready to use. */
export async function connectedStore(config: RedisStoreConfig, environment: string, clock: Clock): Promise<RedisStore> {
  const store = new RedisStore({ config, environment, clock, logger: silentLogger });
  store.connect();
  await untilReady(store);
  return store;
}

/**
 * A real redis-server for the enclosing describe block (started before its
 * tests, disposed after them) and the stores its tests open on it, closed
 * with it.
 */
export function redisStoresUnderTest(clock: Clock) {
  let server: RedisServer | undefined;
  const open: RedisStore[] = [];
  beforeAll(async () => {
    server = await RedisServer.start();
  });
  afterAll(async () => {
    await Promise.all(open.map((store) => store.close()));
    await server?.dispose();
  });
  const closedAfter = (store: RedisStore): RedisStore => {
    open.push(store);
    return store;
  };
  const running = (): RedisServer => {
    if (!server) throw new Error('redis-server is started in beforeAll: use it inside a test');
    return server;
  };
  return {
    get server(): RedisServer {
      return running();
    },
    /** A connected store of `environment` on this server, closed after the block. */
    async storeOn(environment: string): Promise<RedisStore> {
      return closedAfter(await connectedStore(redisStoreConfig({ mode: 'single', url: running().url }), environment, clock));
    },
    /** A store the test opened elsewhere (on a server of its own), closed after the block with the others. */
    closedAfter,
  };
}
