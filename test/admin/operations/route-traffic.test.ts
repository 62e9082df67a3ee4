import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCall } from '../../helpers/admin.js';
import { bootGateway, issueTokens, type TestGateway } from '../../helpers/gateway.js';
import { scrapeCounted } from '../../helpers/metrics.js';

/** GET /admin/v1/traffic: per route, requests answered, refused by the gateway, failed with a 5xx. */

let tg: TestGateway;
beforeAll(async () => {
  tg = await bootGateway();
});
afterAll(() => tg.close());

describe('GET /admin/v1/traffic', () => {
  it('counts per route what was answered, what the gateway refused, and what failed', async () => {
    const { access_token } = await issueTokens(tg.url);
    const route = `${tg.url}/business/score/v2`;
    expect((await fetch(`${route}/x`, { headers: { authorization: `Bearer ${access_token}` } })).status).toBe(200);
    expect((await fetch(`${route}/x`)).status).toBe(401);
    expect((await fetch(`${route}/x/slow`, { headers: { authorization: `Bearer ${access_token}` } })).status).toBe(504);
    await scrapeCounted(tg.gateway.adminUrl!, 4);
    const { status, body } = await adminCall(tg.gateway.adminUrl, 'GET', '/admin/v1/traffic');
    expect(status).toBe(200);
    expect(Date.parse(body.at)).not.toBeNaN();
    expect(body.routes).toContainEqual({ route: '/business/score/v2/', requests: 3, refused: 1, failed: 1 });
    expect(body.routes).toContainEqual({ route: '/oauth2/v1/token', requests: 1, refused: 0, failed: 0 });
  });
});
