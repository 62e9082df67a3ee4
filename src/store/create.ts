import type { Clock } from '../clock.js';
import { StartupError } from '../config/errors.js';
import type { GatewayConfig } from '../config/schema.js';
import { KeySealer, loadKeyEncryptionKey, KEK_ENV } from '../keys/sealing.js';
import type { Logger } from '../log/logger.js';
import { MemoryStore } from './memory.js';
import { RedisStore } from './redis/store.js';
import type { Store } from './types.js';

export interface BuiltStore {
  store: Store;
  /** Seals private keys before they reach the store. */
  sealer: KeySealer;
  /** Begins connecting (Redis); the gateway listens meanwhile and reports not-ready. */
  connect(): void;
}

/**
 * The store named by `store:` and the sealer for its key ring. On Redis the
 * key-encryption key is mandatory: private signing keys are never written
 * there in the clear.
 */
export async function buildStore(config: GatewayConfig, clock: Clock, logger: Logger): Promise<BuiltStore> {
  const kek = await loadKeyEncryptionKey(config.keys.encryption_key_file);
  if (config.store.kind === 'memory') {
    return { store: new MemoryStore(clock), sealer: KeySealer.ephemeral(), connect: () => undefined };
  }
  const environment = config.environment ?? '';
  if (!kek) {
    throw new StartupError(
      `the Redis store keeps the signing keys encrypted: set ${KEK_ENV} to 32 random bytes in base64 ` +
        '(`openssl rand -base64 32`, the same value on every instance of the environment) or name a file holding them in keys.encryption_key_file',
    );
  }
  const store = new RedisStore({ config: config.store, environment, clock, logger });
  return { store, sealer: new KeySealer(kek, environment), connect: () => store.connect() };
}
