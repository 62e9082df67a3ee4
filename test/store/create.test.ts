import { describe, expect, it } from 'vitest';
import { StartupError } from '../../src/config/errors.js';
import { loadGatewayConfig } from '../../src/config/load.js';
import { buildStore } from '../../src/store/create.js';
import { MemoryStore } from '../../src/store/memory.js';
import { RedisStore } from '../../src/store/redis/store.js';
import { ManualClock } from '../helpers/clock.js';
import { configFile } from '../helpers/config-file.js';
import { silentLogger } from '../helpers/redis-store.js';

describe('the store named by store:', () => {
  it('is in memory by default, ready at once', async () => {
    const { store, connect } = buildStore(await loadGatewayConfig(await configFile('')), new ManualClock(), silentLogger);
    expect(store).toBeInstanceOf(MemoryStore);
    connect();
    expect(store.health()).toEqual({ ready: true });
    await store.close();
  });

  it('is Redis under the environment, not connecting until told (the gateway listens meanwhile, not ready)', async () => {
    const config = await loadGatewayConfig(await configFile('environment: uat\nstore: redis://127.0.0.1:1/0\n'));
    const { store } = buildStore(config, new ManualClock(), silentLogger);
    expect(store).toBeInstanceOf(RedisStore);
    expect(store.health()).toMatchObject({ ready: false, reason: 'redis commands connection is not connected yet' });
    await store.close();
  });

  it('refuses a password variable that is not set, before connecting', async () => {
    const config = await loadGatewayConfig(await configFile('environment: uat\nstore: { redis: { url: "redis://127.0.0.1:1/0", password_env: TG_TEST_NOT_SET_ANYWHERE } }\n'));
    expect(() => buildStore(config, new ManualClock(), silentLogger)).toThrow(StartupError);
  });
});
