import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import type { Clock } from '../../src/clock.js';
import type { RedisStoreConfig, RedisTopology } from '../../src/config/store-schema.js';
import { RedisStore } from '../../src/store/redis/store.js';

export const silentLogger = pino({ level: 'silent' });

export function redisStoreConfig(topology: RedisTopology, overrides: Partial<RedisStoreConfig> = {}): RedisStoreConfig {
  return { kind: 'redis', topology, command_timeout: 1_000, connect_timeout: 1_000, resync_interval: 30_000, max_pending: 1_000, ...overrides };
}

/** A fresh environment name per test: stores of different tests never see each other's keys. */
export const uniqueEnvironment = (): string => `test-${randomBytes(6).toString('hex')}`;

export async function untilReady(store: RedisStore, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!store.health().ready) {
    if (Date.now() > deadline) throw new Error(`store not ready: ${store.health().reason}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A connected RedisStore, ready to use. */
export async function connectedStore(config: RedisStoreConfig, environment: string, clock: Clock): Promise<RedisStore> {
  const store = new RedisStore({ config, environment, clock, logger: silentLogger });
  store.connect();
  await untilReady(store);
  return store;
}

/** Polls until `condition` holds; bounded, so a broken propagation fails instead of hanging. */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
