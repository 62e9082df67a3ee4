import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_OPERATIONS, PROBE_METHODS } from '../../src/admin/routes.js';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';

/** The paths of one gateway's admin listener, on a real gateway. */
describe("a gateway's admin routes", () => {
  let tg: TestGateway;
  let admin: string;
  beforeAll(async () => {
    tg = await bootGateway();
    admin = tg.gateway.adminUrl!;
  });
  afterAll(() => tg.close());

  it('lists the admin API operations once each', () => {
    expect(ADMIN_OPERATIONS.map((operation) => `${operation.method} ${operation.path}`).sort()).toEqual([
      'GET /admin/v1/grants',
      'GET /admin/v1/keys',
      'GET /admin/v1/policies',
      'GET /admin/v1/refusals/recent',
      'GET /admin/v1/status',
      'GET /admin/v1/traffic',
      'POST /admin/v1/keys/rotate',
      'POST /admin/v1/revocations',
    ]);
  });

  it.each(['/livez', '/readyz'])('serves the probe %s to GET and HEAD', async (path) => {
    expect(PROBE_METHODS).toEqual(['GET', 'HEAD']);
    for (const method of PROBE_METHODS) expect((await fetch(`${admin}${path}`, { method })).status).toBe(200);
  });

  it('serves /metrics from the context in force', async () => {
    const response = await fetch(`${admin}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('token_gateway_requests_total');
  });

  it('serves each operation at its path, with the context in force after a reload', async () => {
    expect((await tg.gateway.reload('test')).ok).toBe(true);
    expect((await fetch(`${admin}/admin/v1/grants`)).status).toBe(200);
    expect((await fetch(`${admin}/admin/v1/keys/rotate`, { method: 'POST' })).status).toBe(200);
    expect((await fetch(`${admin}/admin/v1/revocations`, { method: 'POST', body: JSON.stringify({ username: 'nobody' }) })).status).toBe(200);
  });

  it('answers a path it does not serve with 404', async () => {
    expect((await fetch(`${admin}/admin/v1/nothing`)).status).toBe(404);
  });
});
