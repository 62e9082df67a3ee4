import { AccountRegistry } from '../accounts/registry.js';
import { accountsSchema, type AccountsFile } from '../accounts/schema.js';
import type { KeyObject } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { GatewayConfig } from '../config/schema.js';
import { namedIn } from '../config/load.js';
import { loadYamlFile } from '../config/yaml-file.js';
import { KeyRingKeeper } from '../keys/keeper.js';
import { KeyRing } from '../keys/key-ring.js';
import { keySealerFor } from '../keys/sealing.js';
import type { Logger } from '../log/logger.js';
import { buildStore } from '../store/create.js';
import type { Store } from '../store/types.js';

/** HKDF's purpose for the successor key: a new purpose name is a new, unrelated key. */
const REFRESH_SUCCESSOR_PURPOSE = 'refresh-successor:v1';

/** The accounts in force, and the file they came from (a reload compares against it). */
export interface LoadedAccounts {
  readonly registry: AccountRegistry;
  readonly file: AccountsFile | undefined;
}

/** accounts.yaml, or the registry a caller (a test, the CLI) already holds. */
export async function loadAccounts(config: GatewayConfig, given: AccountRegistry | undefined): Promise<LoadedAccounts> {
  if (given) return { registry: given, file: undefined };
  // At gateway.yaml's `accounts:` line when the file cannot be read: the operator's typo is there.
  const file = await loadYamlFile(config.accounts, accountsSchema, namedIn(config, 'accounts'));
  return { registry: await AccountRegistry.fromAccounts(file), file };
}

/** The state every instance shares through the store: refresh tokens, revocations, counters, the key ring. */
export interface GatewayState {
  readonly store: Store;
  readonly keyRing: KeyRing;
  readonly keeper: KeyRingKeeper;
  /** Derives rotated refresh tokens' successors; from the key-encryption key, as the sealing of the ring's keys. */
  readonly refreshSuccessorKey: KeyObject;
  /** Begins connecting (Redis) and beating (the instance's heartbeat); the gateway listens meanwhile and reports not-ready. */
  connect(): void;
}

/**
 * The store and the key ring kept in it. The memory store answers at once,
 * so its ring is loaded before the gateway listens; a Redis ring loads in
 * the background (the gateway listens, not ready) and again after every
 * reconnection.
 */
export async function buildState(config: GatewayConfig, clock: Clock, logger: Logger): Promise<GatewayState> {
  const sealer = await keySealerFor(config);
  const { store, connect } = buildStore(config, clock, logger);
  const { access_ttl, clock_leeway } = config.tokens;
  const keyRing = new KeyRing({
    algorithm: config.keys.algorithm,
    rotationIntervalMs: config.keys.rotation_interval,
    retentionMs: access_ttl + clock_leeway,
    clock,
  });
  const keeper = new KeyRingKeeper({ ring: keyRing, storage: store.keyRing, sealer, logger, clock });
  store.onReconnect(() => {
    keeper
      .sync()
      .then(() => keeper.announce())
      // A reconnection in the middle of a failover can find the store away again (a Redis Cluster master still
      // down): the keeper's heartbeat loads the ring again, so this is a warning, as the store's own resync is.
      .catch((error: unknown) => logger.warn({ err: error }, 'could not load the key ring from the store; will retry'));
  });
  if (config.store.kind === 'memory') await keeper.sync();
  return {
    store,
    keyRing,
    keeper,
    refreshSuccessorKey: sealer.deriveKey(REFRESH_SUCCESSOR_PURPOSE),
    connect: () => {
      connect();
      keeper.start();
    },
  };
}
