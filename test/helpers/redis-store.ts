import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import type { Clock } from '../../src/clock.js';
import type { RedisStoreConfig, RedisTopology } from '../../src/config/store-schema.js';
import { RedisStore } from '../../src/store/redis/store.js';
import { eventually } from './eventually.js';

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
