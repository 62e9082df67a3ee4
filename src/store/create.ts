import type { Clock } from '../clock.js';
import { StartupError } from '../config/errors.js';
import type { GatewayConfig } from '../config/schema.js';
import { KeySealer, loadKeyEncryptionKey, KEK_ENV } from '../keys/sealing.js';
import type { Logger } from '../log/logger.js';
import { MemoryStore } from './memory.js';
import { redisPassword } from './redis/connection.js';
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
  if (config.store.kind === 'memory') {
    return { store: new MemoryStore(clock), sealer: KeySealer.ephemeral(), connect: () => undefined };
  }
  const { kek, password } = await loadStoreSecrets(config);
  const environment = config.environment ?? '';
  const store = new RedisStore({ config: config.store, environment, clock, logger, password });
  return { store, sealer: new KeySealer(kek, environment), connect: () => store.connect() };
}

/**
 * The secrets a Redis store needs, read from where the config says, or a
 * StartupError saying what is missing (`check` runs this too).
 */
export async function loadStoreSecrets(config: GatewayConfig): Promise<{ kek: Buffer; password: string | undefined }> {
  if (config.store.kind !== 'redis') throw new Error('only a Redis store has secrets');
  const kek = await loadKeyEncryptionKey(config.keys.encryption_key_file);
  if (!kek) {
    throw new StartupError(
      `the Redis store keeps the signing keys encrypted: set ${KEK_ENV} to 32 random bytes in base64 ` +
        '(`openssl rand -base64 32`, the same value on every instance of the environment) or name a file holding them in keys.encryption_key_file',
    );
  }
  return { kek, password: redisPassword(config.store) };
}
