import { describe, expect, it } from 'vitest';
import { AccountRegistry } from '../../src/accounts/registry.js';
import { ConfigError } from '../../src/config/errors.js';
import { loadGatewayConfig } from '../../src/config/load.js';
import { buildState, loadAccounts } from '../../src/lifecycle/state.js';
import { MemoryStore } from '../../src/store/memory.js';
import { accountsYaml } from '../helpers/accounts.js';
import { ManualClock } from '../helpers/clock.js';
import { configFile } from '../helpers/config-file.js';
import { silentLogger } from '../helpers/redis-store.js';

describe('the state a gateway builds at start', () => {
  it('reads accounts.yaml, or takes the registry it is given', async () => {
    const accounts = await configFile(await accountsYaml(), 'accounts.yaml');
    const config = await loadGatewayConfig(await configFile(`accounts: ${accounts}\n`));
    const loaded = await loadAccounts(config, undefined);
    expect(loaded.file?.users.length).toBeGreaterThan(0);
    const given = await AccountRegistry.fromAccounts({ users: [], apps: [] });
    expect(await loadAccounts(config, given)).toEqual({ registry: given, file: undefined });
  });

  it('refuses an accounts file that does not load, naming it', async () => {
    const config = await loadGatewayConfig(await configFile('accounts: ./missing.yaml\n'));
    await expect(loadAccounts(config, undefined)).rejects.toBeInstanceOf(ConfigError);
  });

  it('on the memory store, has the key ring loaded before the gateway listens', async () => {
    const config = await loadGatewayConfig(await configFile(''));
    const state = await buildState(config, new ManualClock(), silentLogger);
    try {
      expect(state.store).toBeInstanceOf(MemoryStore);
      expect(state.keyRing.loaded).toBe(true);
      expect(state.keyRing.list()).toHaveLength(2);
    } finally {
      await state.store.close();
    }
  });
});
