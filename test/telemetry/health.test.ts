import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyRing } from '../../src/keys/key-ring.js';
import type { Store, StoreHealth } from '../../src/store/types.js';
import { clusterReadinessOf, readinessOf } from '../../src/telemetry/health.js';
import { GatewayProcess } from '../helpers/gateway-process.js';
import { callProtected, errorOf, issueTokens, passwordGrant } from '../helpers/gateway.js';
import { scrape } from '../helpers/metrics.js';
import { RedisServer } from '../helpers/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { uniqueEnvironment } from '../helpers/redis-store.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

interface ReadinessBody {
  status: string;
  checks: { store: string; keys: string };
}

const readiness = async (url: string): Promise<{ status: number; body: ReadinessBody }> => {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as ReadinessBody };
};

/** Only what readiness reads of a store and a key ring. */
const sources = (store: StoreHealth, keysLoaded: boolean, draining = false, listLoaded = true) => ({
  store: { health: () => store, revocations: { loaded: listLoaded } } as unknown as Store,
  keyRing: { loaded: keysLoaded } as unknown as KeyRing,
  shutdown: { draining, graceOver: false },
});
const UP: StoreHealth = { ready: true };
const DOWN: StoreHealth = { ready: false, reason: 'redis commands connection is reconnecting' };

describe('readiness, rule by rule', () => {
  it.each([
    ['store up, keys loaded', UP, true, false, true, 'ready'],
    ['store away, keys (and with them the revocation list) loaded: protected calls served from memory', DOWN, true, false, true, 'degraded'],
    ['keys not loaded yet (a Redis store at start)', DOWN, false, false, false, 'not-ready'],
    ['keys not loaded, whatever the store says', UP, false, false, false, 'not-ready'],
    ['draining, however healthy', UP, true, true, false, 'draining'],
    ['draining while degraded', DOWN, true, true, false, 'draining'],
  ] as const)('%s: %s', (_case, store, keys, draining, ready, status) => {
    expect(readinessOf(sources(store, keys, draining))).toMatchObject({ ready, status });
  });

  it.each([
    ['store up', UP],
    ['store away', DOWN],
  ] as const)('is not ready, %s, while the whole revocation list is not held (an instance started during an outage waits for a peer)', (_case, store) => {
    expect(readinessOf(sources(store, true, false, false))).toMatchObject({ ready: false, status: 'not-ready' });
  });

  it('names each check, with the reason the store gave', () => {
    expect(readinessOf(sources(DOWN, true)).checks).toEqual({ store: 'down: redis commands connection is reconnecting', keys: 'loaded' });
  });
});

describe("a cluster primary's readiness from its workers'", () => {
  it.each([
    [['ready', 'ready'], true, 'ready'],
    [['ready', 'degraded'], true, 'degraded'],
    // A worker that does not listen yet gets no connection: it holds nobody back, but cannot serve alone.
    [['ready', 'starting'], true, 'ready'],
    [['starting', 'starting'], false, 'not-ready'],
    [[], false, 'not-ready'],
    // A worker that gets connections must serve them.
    [['ready', 'silent'], false, 'not-ready'],
    [['ready', 'not-ready'], false, 'not-ready'],
    [['ready', 'draining'], false, 'draining'],
  ] as const)('%j -> %s %s', (statuses, ready, status) => {
    expect(clusterReadinessOf(statuses)).toEqual({ ready, status });
  });
});

/** A real gateway process on a real redis-server, which the test kills and launches again. */
describe('readiness on the admin listener follows the store', () => {
  let redis: RedisServer;
  let upstream: TestUpstream;
  let gateway: GatewayProcess;
  beforeAll(async () => {
    redis = await RedisServer.start();
    upstream = await startUpstream();
    gateway = await GatewayProcess.start({
      environment: uniqueEnvironment(),
      store: { redis: { url: redis.url, command_timeout: '300ms' } },
      routes: [{ path: '/business/score/v2/', upstream: upstream.url, timeout: '2s' }],
    });
    await gateway.ready();
  });
  afterAll(async () => {
    await gateway?.stop();
    await upstream?.close();
    await redis?.dispose();
  });

  it('is ready, with the store up, while redis answers', async () => {
    expect(await readiness(gateway.adminUrl)).toEqual({ status: 200, body: { status: 'ready', checks: { store: 'up', keys: 'loaded' } } });
    expect((await fetch(`${gateway.adminUrl}/livez`)).status).toBe(200);
    const scraped = await scrape(gateway.adminUrl);
    expect(scraped.value('token_gateway_store_up')).toBe(1);
    expect(scraped.value('token_gateway_ready')).toBe(1);
  });

  it('stays in rotation, degraded (200), while redis is away and protected calls are served from memory; ready again when it is back', async () => {
    const tokens = await issueTokens(gateway.url);
    await redis.kill();
    await eventually(async () => (await readiness(gateway.adminUrl)).body.status === 'degraded');
    for (const url of [gateway.adminUrl, gateway.url]) {
      const down = await readiness(url);
      expect(down.status).toBe(200);
      expect(down.body.checks).toMatchObject({ store: expect.stringMatching(/^down: /), keys: 'loaded' });
    }
    // What degraded means: protected calls work, token issuance says to come back.
    expect((await callProtected(gateway.url, tokens.access_token)).status).toBe(200);
    const issuing = await passwordGrant(gateway.url);
    expect(issuing.headers.get('retry-after')).toBe('1');
    expect(await errorOf(issuing)).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' });
    // Liveness is not readiness: the process still serves, and must not be restarted for a Redis outage.
    expect((await fetch(`${gateway.adminUrl}/livez`)).status).toBe(200);
    const whileDown = await scrape(gateway.adminUrl);
    expect(whileDown.value('token_gateway_store_up')).toBe(0);
    expect(whileDown.value('token_gateway_ready')).toBe(1);

    await redis.launch();
    await eventually(async () => (await readiness(gateway.adminUrl)).body.status === 'ready', { timeoutMs: 15_000 });
    expect((await scrape(gateway.adminUrl)).value('token_gateway_store_up')).toBe(1);
    expect(gateway.failures()).toEqual([]);
  });
});
