import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../../src/config/load.js';
import type { GatewayConfig } from '../../src/config/schema.js';
import { Generations, type SharedParts } from '../../src/lifecycle/generation.js';
import type { Forwarder } from '../../src/proxy/forward.js';
import { configFile } from '../helpers/config-file.js';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';

/** Generations built from a real gateway's shared parts, with forwarders the test counts. */
describe('generations: the config and accounts in force, swapped whole', () => {
  let tg: TestGateway;
  let shared: SharedParts;
  beforeAll(async () => {
    tg = await bootGateway();
    const { config: _config, accounts: _accounts, loginThrottle: _throttle, ...rest } = tg.gateway.context;
    shared = rest;
  });
  afterAll(() => tg.close());

  const configWith = async (yaml: string): Promise<GatewayConfig> => loadGatewayConfig(await configFile(`accounts: ${tg.gateway.context.config.accounts}\n${yaml}`));
  function generations(config: GatewayConfig, inFlightDone = () => Promise.resolve()) {
    const forwarders: Array<{ closed: boolean }> = [];
    const createForwarder = (): Forwarder => {
      const state = { closed: false };
      forwarders.push(state);
      return { forward: async () => undefined, close: () => void (state.closed = true) };
    };
    return { generations: new Generations(shared, config, tg.gateway.context.accounts, createForwarder, inFlightDone), forwarders };
  }

  it('builds one frozen context from the shared parts, the config and the accounts', async () => {
    const config = await configWith('');
    const { generations: g } = generations(config);
    expect(g.current.config).toBe(config);
    expect(g.current.store).toBe(shared.store);
    expect(Object.isFrozen(g.current)).toBe(true);
  });

  it('swaps in a new context at once, keeping the forwarder and the login counters when their settings did not change', async () => {
    const { generations: g, forwarders } = generations(await configWith('log: { level: info }\n'));
    const before = g.current;
    const next = await configWith('log: { level: debug }\n');
    g.replace(next, tg.gateway.context.accounts);
    expect(g.current).not.toBe(before);
    expect(g.current.config).toBe(next);
    expect(g.current.loginThrottle).toBe(before.loginThrottle);
    expect(forwarders).toHaveLength(1);
  });

  it('starts a new forwarder when its settings change, and closes the old one once the requests in flight have ended', async () => {
    let endInFlight: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => (endInFlight = resolve));
    const { generations: g, forwarders } = generations(await configWith('limits: { body_size: 1mb }\n'), () => inFlight);
    g.replace(await configWith('limits: { body_size: 2mb }\n'), tg.gateway.context.accounts);
    expect(forwarders).toHaveLength(2);
    expect(forwarders[0]!.closed).toBe(false);
    endInFlight();
    await inFlight;
    await Promise.resolve();
    expect(forwarders.map((forwarder) => forwarder.closed)).toEqual([true, false]);
    g.close();
    expect(forwarders[1]!.closed).toBe(true);
  });

  it('starts new login counters when the brute-force thresholds change', async () => {
    const { generations: g } = generations(await configWith('brute_force: { max_failures_per_username: 10 }\n'));
    const before = g.current.loginThrottle;
    g.replace(await configWith('brute_force: { max_failures_per_username: 3 }\n'), tg.gateway.context.accounts);
    expect(g.current.loginThrottle).not.toBe(before);
  });

  it('serves each request with the generation in force when it arrived', async () => {
    const { generations: g } = generations(await configWith(''));
    expect(typeof g.listener).toBe('function');
    // The listener is stable across replacements: the client listeners keep it for their whole life.
    const listener = g.listener;
    g.replace(await configWith(''), tg.gateway.context.accounts);
    expect(g.listener).toBe(listener);
  });
});
