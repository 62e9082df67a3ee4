import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCall } from '../../helpers/admin.js';
import { APP } from '../../helpers/accounts.js';
import { bootGateway, issueTokens, type TestGateway } from '../../helpers/gateway.js';
import { eventually } from '../../helpers/eventually.js';

/** GET /admin/v1/refusals/recent: the latest policy verdicts, newest first, without a token, secret, header or query. */

let tg: TestGateway;
let token: string;
beforeAll(async () => {
  tg = await bootGateway({
    policies: {
      main: {
        policies: [
          { name: 'guard', kind: 'regex-protection', builtin: [], patterns: [{ name: 'blocked-word', pattern: 'blocked' }] },
          { name: 'shadow-guard', kind: 'regex-protection', mode: 'report', builtin: [], patterns: [{ name: 'odd-word', pattern: 'odd' }] },
        ],
      },
    },
    config: (upstream) => ({ routes: [{ path: '/business/score/v2/', upstream, policies: ['shadow-guard', 'guard'] }] }),
  });
  token = (await issueTokens(tg.url)).access_token;
});
afterAll(() => tg.close());

const call = (query: string) => fetch(`${tg.url}/business/score/v2/x?${query}`, { headers: { authorization: `Bearer ${token}` } });
const recent = (query: Record<string, string> = {}) => adminCall(tg.gateway.adminUrl, 'GET', '/admin/v1/refusals/recent', query);

describe('GET /admin/v1/refusals/recent', () => {
  it('lists refusals and would-refusals, newest first, with route, policy, client and status', async () => {
    expect((await call('w=odd')).status).toBe(200);
    expect((await call('w=blocked-secret-value')).status).toBe(401);
    await eventually(async () => (await recent()).body.refusals.length === 2);
    const { status, body } = await recent();
    expect(status).toBe(200);
    expect(body.limit).toBe(100);
    // Both policies run before authentication, which they did not need: the address says who called.
    expect(body.refusals.map(({ at, requestId, pid, ...rest }: Record<string, unknown>) => rest)).toEqual([
      { route: '/business/score/v2/', policy: 'guard', kind: 'regex-protection', mode: 'enforce', status: 401, errorCode: 'REGEX_THREAT', clientId: null, clientAddress: '127.0.0.1' },
      { route: '/business/score/v2/', policy: 'shadow-guard', kind: 'regex-protection', mode: 'report', status: 401, errorCode: 'REGEX_THREAT', clientId: null, clientAddress: '127.0.0.1' },
    ]);
    expect(body.refusals[0].pid).toBe(process.pid);
    expect(Date.parse(body.refusals[0].at)).toBeGreaterThanOrEqual(Date.parse(body.refusals[1].at));
    const text = JSON.stringify(body);
    for (const secret of [token, 'blocked-secret-value', APP.client_secret]) expect(text).not.toContain(secret);
  });

  it('keeps only the latest 100, and gives fewer on ?limit', async () => {
    for (let i = 0; i < 105; i++) await call(`w=blocked&i=${i}`);
    expect((await recent()).body.refusals).toHaveLength(100);
    expect((await recent({ limit: '3' })).body.refusals).toHaveLength(3);
    expect(await recent({ limit: '101' })).toEqual({ status: 400, body: { error: '"limit" must be a whole number from 1 to 100' } });
  });
});
