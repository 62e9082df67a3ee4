import type { Clock } from '../clock.js';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { MemoryStore } from './memory.js';
import { redisPassword } from './redis/connection.js';
import { RedisStore } from './redis/store.js';
import type { Store } from './types.js';

export interface BuiltStore {
  store: Store;
  /** Begins connecting (Redis); the gateway listens meanwhile and reports not-ready. */
  connect(): void;
}

/** The store named by `store:`: in memory, or Redis under the environment's prefix. */
export function buildStore(config: GatewayConfig, clock: Clock, logger: Logger): BuiltStore {
  if (config.store.kind === 'memory') return { store: new MemoryStore(clock), connect: () => undefined };
  const environment = config.environment ?? '';
  const store = new RedisStore({ config: config.store, environment, clock, logger, password: redisPassword(config.store) });
  return { store, connect: () => store.connect() };
}
