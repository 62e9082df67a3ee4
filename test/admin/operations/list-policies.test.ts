import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCall } from '../../helpers/admin.js';
import { bootGateway, issueTokens, type PolicyFile, type TestGateway } from '../../helpers/gateway.js';

/** GET /admin/v1/policies: the set in force, each policy with its mode and figures, and each chain where it is attached. */

const POLICIES: PolicyFile = {
  policies: [
    { name: 'guard', kind: 'regex-protection', builtin: [], patterns: [{ name: 'blocked-word', pattern: 'blocked' }] },
    { name: 'shadow-network', kind: 'ip-range', mode: 'report', rules: [{ allow: '10.0.0.0/8' }], default: 'deny' },
    { name: 'app-only', kind: 'spike-arrest', rate: '100ps' },
    { name: 'unused', kind: 'time-of-day', windows: [{ days: ['mon'], from: '08:00', to: '09:00' }] },
  ],
};

let tg: TestGateway;
beforeAll(async () => {
  tg = await bootGateway({
    policies: { main: POLICIES },
    appPolicies: { 'app-one': ['app-only'] },
    config: (upstream) => ({
      policies: { defaults: ['guard'], endpoints: { '/oauth2/v1/token': ['shadow-network'] } },
      routes: [{ path: '/business/score/v2/', upstream, policies: ['shadow-network'] }],
    }),
  });
});
afterAll(() => tg.close());

const policies = () => adminCall(tg.gateway.adminUrl, 'GET', '/admin/v1/policies');

describe('GET /admin/v1/policies', () => {
  it('lists every chain in the order it runs, the defaults first, and the apps that have their own', async () => {
    const { status, body } = await policies();
    expect(status).toBe(200);
    expect(body.chains.routes).toEqual([{ path: '/business/score/v2/', policies: ['guard', 'shadow-network'] }]);
    expect(body.chains.endpoints).toContainEqual({ path: '/oauth2/v1/token', policies: ['guard', 'shadow-network'] });
    expect(body.chains.endpoints).toContainEqual({ path: '/oauth2/v1/revokeToken', policies: ['guard'] });
    expect(body.chains.apps).toEqual([{ clientId: 'app-one', policies: ['app-only'] }]);
  });

  it('gives each policy its mode and live figures, policies nothing attaches included', async () => {
    const { access_token } = await issueTokens(tg.url);
    for (const query of ['?w=fine', '?w=blocked']) await fetch(`${tg.url}/business/score/v2/x${query}`, { headers: { authorization: `Bearer ${access_token}` } });
    const { body } = await policies();
    const byName = Object.fromEntries(body.policies.map((entry: { name: string }) => [entry.name, entry]));
    expect(Object.keys(byName).sort()).toEqual(['app-only', 'guard', 'shadow-network', 'unused']);
    // guard ran on the token request and both calls, refusing one; shadow-network (report, loopback is outside
    // 10/8) would have refused the token request and the call guard let through; app-only ran once app-one was
    // authenticated: on the token request and the call guard let through.
    expect(byName.guard).toMatchObject({ kind: 'regex-protection', mode: 'enforce', evaluations: 3, refusals: 1, wouldRefuse: 0 });
    expect(byName['shadow-network']).toMatchObject({ kind: 'ip-range', mode: 'report', evaluations: 2, refusals: 0, wouldRefuse: 2 });
    expect(byName['app-only']).toMatchObject({ mode: 'enforce', evaluations: 2, refusals: 0 });
    expect(byName.unused).toEqual({ name: 'unused', kind: 'time-of-day', mode: 'enforce', evaluations: 0, refusals: 0, wouldRefuse: 0, seconds: 0 });
    expect(byName.guard.seconds).toBeGreaterThan(0);
  });
});
