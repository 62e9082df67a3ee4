import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, OTHER_APP } from '../helpers/accounts.js';
import { bootGateway, callProtected, errorOf, issueTokens, passwordGrant, type TestGateway } from '../helpers/gateway.js';

const LOOPBACK_DENIED = { name: 'no-loopback', kind: 'ip-range', rules: [{ deny: '127.0.0.0/8' }], default: 'allow' };

/**
 * The phases every request runs, in order: policies before authentication,
 * the method, authentication, the app's policies, serving. Each rule shows
 * which phase refuses first.
 */
describe('the request phases', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway({
      policies: { rules: { policies: [LOOPBACK_DENIED] } },
      appPolicies: { [OTHER_APP.client_id]: ['no-loopback'] },
      config: (upstream) => ({
        policies: { endpoints: { '/oauth2/v1/revokeToken': ['no-loopback'] } },
        routes: [
          { path: '/open/', upstream, timeout: '2s' },
          { path: '/walled/', upstream, timeout: '2s', policies: ['no-loopback'] },
        ],
      }),
    });
  });
  afterAll(() => tg.close());

  it("runs the endpoint's policies before the method check: a refused caller learns nothing of the methods", async () => {
    expect(await errorOf(await fetch(`${tg.url}/oauth2/v1/revokeToken`, { method: 'GET' }))).toMatchObject({ status: 403, errorCode: 'IP_RANGE_FORBIDDEN' });
  });

  it('checks the method before authenticating: 405 with Allow, though no credentials were sent', async () => {
    const response = await fetch(`${tg.url}/oauth2/v1/token`, { method: 'PUT' });
    expect(await errorOf(response)).toMatchObject({ status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
    expect(response.headers.get('allow')).toBe('POST');
  });

  it("runs a route's policies before authentication: no token is still a 403", async () => {
    expect(await errorOf(await callProtected(tg.url, undefined, '/walled/x'))).toMatchObject({ status: 403, errorCode: 'IP_RANGE_FORBIDDEN' });
    expect(await errorOf(await callProtected(tg.url, undefined, '/open/x'))).toMatchObject({ status: 401 });
  });

  it("runs the app's own policies only once its credentials are verified", async () => {
    // Wrong secret: authentication refuses first, the app's policy never ran.
    expect(await errorOf(await passwordGrant(tg.url, { ...OTHER_APP, client_secret: 'wrong' }))).toMatchObject({ status: 401, errorCode: 'INVALID_CLIENT_CREDENTIALS' });
    expect(await errorOf(await passwordGrant(tg.url, OTHER_APP))).toMatchObject({ status: 403, errorCode: 'IP_RANGE_FORBIDDEN' });
    expect((await passwordGrant(tg.url, APP)).status).toBe(200);
  });

  it("runs the app's policies on routes too, once the Bearer token names the app", async () => {
    const { access_token } = await issueTokens(tg.url);
    expect((await callProtected(tg.url, access_token, '/open/x')).status).toBe(200);
  });

  it('names the route in the access line, whatever phase refused', async () => {
    await callProtected(tg.url, undefined, '/walled/y');
    expect(tg.logs.filter((line) => line.msg === 'request' && line.path === '/walled/y').at(-1)).toMatchObject({ route: '/walled/', status: 403 });
  });
});
