import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadGatewayConfig } from '../../src/config/load.js';
import { gatewayConfigSchema, type GatewayConfig } from '../../src/config/schema.js';
import { planReload, RELOAD_RULES } from '../../src/lifecycle/reload-plan.js';

describe('reload plan', () => {
  let dir: string;
  let running: GatewayConfig;
  const load = async (config: Record<string, unknown>) => {
    await writeFile(join(dir, 'gateway.yaml'), stringify(config));
    return loadGatewayConfig(join(dir, 'gateway.yaml'));
  };
  const base = { routes: [{ path: '/a/', upstream: 'http://127.0.0.1:9' }], trusted_proxies: ['10.0.0.0/8'] };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-plan-'));
    running = await load(base);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('has a rule for every key of gateway.yaml', () => {
    expect(Object.keys(RELOAD_RULES).sort()).toEqual(Object.keys(gatewayConfigSchema.shape).sort());
  });

  it('finds nothing to do when the file is unchanged', async () => {
    expect(planReload(running, await load(base))).toMatchObject({ changed: [], needsRestart: [] });
  });

  it.each([
    ['a route', { routes: [{ path: '/b/', upstream: 'http://127.0.0.1:9' }] }, ['routes'], []],
    ['a limit', { limits: { body_size: '2mb', shutdown_grace: '1s' } }, ['limits.body_size', 'limits.shutdown_grace'], []],
    ['a trusted proxy', { trusted_proxies: ['10.0.0.0/16'] }, ['trusted_proxies'], []],
    ['the policy attachments', { policies: { defaults: ['x'] } }, ['policies.defaults'], []],
    ['the port', { listen: { port: 9000 } }, [], ['listen.port']],
    [
      'the store and environment',
      { store: 'redis://127.0.0.1:6379/0', environment: 'prod' },
      [],
      ['environment', 'store.kind', 'store.topology', 'store.command_timeout', 'store.connect_timeout', 'store.resync_interval', 'store.max_pending'],
    ],
    ['TLS, added', { tls: { cert_file: 'c.pem', key_file: 'k.pem' } }, [], ['tls']],
    ['a token lifetime and the log level', { tokens: { access_ttl: '5m' }, log: { level: 'debug' } }, ['log.level'], ['tokens.access_ttl']],
  ])('sorts a change of %s into live and restart-only keys', async (_case, change, changed, needsRestart) => {
    const plan = planReload(running, await load({ ...base, ...change }));
    expect(plan.changed).toEqual(changed);
    expect(plan.needsRestart).toEqual(needsRestart);
  });

  it('runs the new file with every restart-only key at its running value', async () => {
    const next = await load({ ...base, listen: { port: 9000 }, tokens: { access_ttl: '5m' }, limits: { body_size: '2mb' } });
    const { config } = planReload(running, next);
    expect(config.listen).toBe(running.listen);
    expect(config.tokens).toBe(running.tokens);
    expect(config.limits.body_size).toBe(2 * 1024 * 1024);
    expect(Object.isFrozen(config)).toBe(true);
  });
});
