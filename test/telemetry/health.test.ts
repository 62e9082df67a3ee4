import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayProcess } from '../helpers/gateway-process.js';
import { scrape } from '../helpers/metrics.js';
import { RedisServer } from '../helpers/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { uniqueEnvironment } from '../helpers/redis-store.js';

interface ReadinessBody {
  status: string;
  checks: { store: string; keys: string };
}

const readiness = async (url: string): Promise<{ status: number; body: ReadinessBody }> => {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as ReadinessBody };
};

/** A real gateway process on a real redis-server, which the test kills and launches again. */
describe('readiness on the admin listener follows the store', () => {
  let redis: RedisServer;
  let gateway: GatewayProcess;
  beforeAll(async () => {
    redis = await RedisServer.start();
    gateway = await GatewayProcess.start({ environment: uniqueEnvironment(), store: { redis: { url: redis.url, command_timeout: '300ms' } } });
    await gateway.ready();
  });
  afterAll(async () => {
    await gateway?.stop();
    await redis?.dispose();
  });

  it('is ready, with the store up, while redis answers', async () => {
    expect(await readiness(gateway.adminUrl)).toEqual({ status: 200, body: { status: 'ready', checks: { store: 'up', keys: 'loaded' } } });
    expect((await fetch(`${gateway.adminUrl}/livez`)).status).toBe(200);
    const scraped = await scrape(gateway.adminUrl);
    expect(scraped.value('token_gateway_store_up')).toBe(1);
    expect(scraped.value('token_gateway_ready')).toBe(1);
  });

  it('turns not-ready (503, store_up 0) when redis is killed, and ready again when it is back', async () => {
    await redis.kill();
    await eventually(async () => (await readiness(gateway.adminUrl)).status === 503);
    const down = await readiness(gateway.adminUrl);
    expect(down.body.status).toBe('not-ready');
    expect(down.body.checks.store).toMatch(/^down: /);
    // Liveness is not readiness: the process still serves, and must not be restarted for a Redis outage.
    expect((await fetch(`${gateway.adminUrl}/livez`)).status).toBe(200);
    const whileDown = await scrape(gateway.adminUrl);
    expect(whileDown.value('token_gateway_store_up')).toBe(0);
    expect(whileDown.value('token_gateway_ready')).toBe(0);

    await redis.launch();
    await eventually(async () => (await readiness(gateway.adminUrl)).status === 200, { timeoutMs: 15_000 });
    const back = await scrape(gateway.adminUrl);
    expect(back.value('token_gateway_store_up')).toBe(1);
    expect(back.value('token_gateway_ready')).toBe(1);
    expect(gateway.failures()).toEqual([]);
  });
});
