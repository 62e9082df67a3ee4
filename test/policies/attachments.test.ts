import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, OTHER_APP } from '../helpers/accounts.js';
import { ManualClock } from '../helpers/clock.js';
import { bootGateway, errorOf, issueTokens, passwordGrant, revoke, type TestGateway } from '../helpers/gateway.js';

/**
 * Where policies run: `policies.defaults` on every route and OAuth endpoint,
 * `policies.endpoints` on one endpoint, `routes[].policies` on one route, and
 * `apps[].policies` once the client is known.
 */
describe('policy attachments', () => {
  const clock = new ManualClock(Date.parse('2026-11-23T15:00:00.000Z'));
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await bootGateway({
      clock,
      policies: {
        guards: {
          policies: [
            { name: 'no-injection', kind: 'regex-protection', builtin: ['sql-injection'], apply_to: { json_body: 'none' } },
            { name: 'login-rate', kind: 'spike-arrest', rate: '60pm', identifier: 'client_id' },
            { name: 'nobody', kind: 'ip-range', rules: [{ allow: '10.0.0.0/8' }], default: 'deny' },
          ],
        },
      },
      appPolicies: { [OTHER_APP.client_id]: ['nobody'] },
      config: (upstream) => ({
        policies: { defaults: ['no-injection'], endpoints: { '/oauth2/v1/token': ['login-rate'] } },
        routes: [{ path: '/business/score/v2/', upstream, timeout: '2s' }],
      }),
    });
  });
  afterAll(() => gw.close());

  it('runs the defaults on the OAuth endpoints and on routes', async () => {
    const injected = "?q=' OR 1=1 --";
    for (const path of ['/oauth2/v1/keys', '/.well-known/openid-configuration', '/business/score/v2/directors']) {
      expect(await errorOf(await fetch(`${gw.url}${path}${injected}`))).toMatchObject({ status: 401, errorCode: 'REGEX_THREAT' });
    }
    expect((await fetch(`${gw.url}/oauth2/v1/keys`)).status).toBe(200);
  });

  it('never runs policies on the health probes', async () => {
    expect((await fetch(`${gw.url}/livez?q=' OR 1=1 --`)).status).toBe(200);
  });

  it("runs an endpoint's own policies, counting by the client_id the request claims, before any secret is hashed", async () => {
    clock.advance(60_000 - (clock.now() % 60_000));
    expect((await passwordGrant(gw.url)).status).toBe(200);
    const second = await passwordGrant(gw.url, { client_secret: 'wrong' });
    expect(await errorOf(second)).toMatchObject({ status: 401, errorCode: 'SPIKE_ARREST' });
    expect(second.headers.get('retry-after')).toBe('1');
    // Another client has its own allowance: it gets past the spike arrest (to its own app policy).
    expect(await errorOf(await passwordGrant(gw.url, { ...OTHER_APP }))).toMatchObject({ status: 403, errorCode: 'IP_RANGE_FORBIDDEN' });
  });

  it('counts a client_id nobody knows by the client address, so made-up ids get no fresh allowance', async () => {
    clock.advance(60_000 - (clock.now() % 60_000));
    expect(await errorOf(await passwordGrant(gw.url, { client_id: 'made-up-1' }))).toMatchObject({ errorCode: 'INVALID_CLIENT_CREDENTIALS' });
    expect(await errorOf(await passwordGrant(gw.url, { client_id: 'made-up-2' }))).toMatchObject({ errorCode: 'SPIKE_ARREST' });
  });

  it("runs an app's own policies once its credentials are verified", async () => {
    clock.advance(1_000);
    const { access_token } = await issueTokens(gw.url);
    clock.advance(1_000);
    const refused = await passwordGrant(gw.url, { ...OTHER_APP });
    expect(await errorOf(refused)).toMatchObject({ status: 403, errorCode: 'IP_RANGE_FORBIDDEN' });
    expect((await revoke(gw.url, access_token, APP)).status).toBe(200);
    expect(await errorOf(await revoke(gw.url, access_token, OTHER_APP))).toMatchObject({ status: 403, errorCode: 'IP_RANGE_FORBIDDEN' });
  });
});
