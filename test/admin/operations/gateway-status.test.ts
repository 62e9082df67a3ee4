import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCall } from '../../helpers/admin.js';
import { bootGateway, type TestGateway } from '../../helpers/gateway.js';

/** GET /admin/v1/status: the store, readiness, the policies and the serving process. */

let tg: TestGateway;
beforeAll(async () => {
  tg = await bootGateway({
    policies: { main: { policies: [{ name: 'shadow', kind: 'regex-protection', mode: 'report' }, { name: 'guard', kind: 'regex-protection' }] } },
  });
});
afterAll(() => tg.close());

describe('GET /admin/v1/status', () => {
  it('says what the store is and whether it answers, how many policies run in report mode, and which process serves', async () => {
    const { status, body } = await adminCall(tg.gateway.adminUrl, 'GET', '/admin/v1/status');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      version: '0.1.0',
      node: process.version,
      environment: null,
      issuer: tg.url,
      store: { kind: 'memory', description: 'memory', up: true, reason: null },
      readiness: 'ready',
      policies: { count: 2, reportOnly: 1, routes: 1 },
      workers: { configured: 1, running: 1, reporting: 1 },
    });
    expect(body.processes).toEqual([
      { pid: process.pid, status: 'ready', checks: { store: 'up', keys: 'loaded' }, startedAt: expect.any(String), uptimeSeconds: expect.any(Number), residentBytes: expect.any(Number) },
    ]);
  });
});
