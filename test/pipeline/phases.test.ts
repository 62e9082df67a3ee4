import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, OTHER_APP } from '../helpers/accounts.js';
import { bootGateway, callProtected, errorOf, issueTokens, passwordGrant, type TestGateway } from '../helpers/gateway.js';
import { rawConversation } from '../helpers/raw-http.js';

const LOOPBACK_DENIED = { name: 'no-loopback', kind: 'ip-range', rules: [{ deny: '127.0.0.0/8' }], default: 'allow' };
/** APP's own policy: refuses a path or a JSON body holding `forbidden-for-app`; the body is read only when there is one. */
const APP_GUARD = {
  name: 'app-guard',
  kind: 'regex-protection',
  builtin: [],
  patterns: [{ name: 'app-forbidden', pattern: 'forbidden-for-app' }],
  apply_to: { path: true, json_body: 'all' },
};

/**
 * The phases every request runs, in order: policies before authentication,
 * the method, authentication, the app's policies, serving. Each rule shows
 * which phase refuses first.
 */
describe('the request phases', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway({
      policies: { rules: { policies: [LOOPBACK_DENIED, APP_GUARD] } },
      appPolicies: { [OTHER_APP.client_id]: ['no-loopback'], [APP.client_id]: ['app-guard'] },
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

  it("refuses a protected call by the app's own policy, whether its token was verified before or not", async () => {
    const { access_token } = await issueTokens(tg.url);
    // The first call verifies the token (the phases wait for it); the second finds it verified (no phase waits).
    for (const call of ['first', 'second']) {
      const refusal = await errorOf(await callProtected(tg.url, access_token, '/open/forbidden-for-app'));
      expect(refusal, `${call} call`).toMatchObject({ status: 401, errorCode: 'REGEX_THREAT' });
    }
    expect(tg.upstream.seen.some((seen) => seen.url.includes('forbidden-for-app'))).toBe(false);
  });

  it("waits for an app policy that reads the body, then forwards or refuses", async () => {
    const { access_token } = await issueTokens(tg.url);
    await callProtected(tg.url, access_token, '/open/x'); // the token verified: only the body makes the phases wait
    const post = (body: unknown) =>
      fetch(`${tg.url}/open/body`, { method: 'POST', headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const served = await post({ note: 'fine' });
    expect(served.status).toBe(200);
    expect(tg.upstream.seen.at(-1)).toMatchObject({ method: 'POST', url: '/open/body', body: '{"note":"fine"}' });
    expect(await errorOf(await post({ note: 'forbidden-for-app' }))).toMatchObject({ status: 401, errorCode: 'REGEX_THREAT' });
  });

  it('keeps the connection of a request refused before any phase waited, as of one refused later', async () => {
    // A refusal found at once is rendered once node has parsed the whole request: rendered earlier, a bodiless
    // request would look unfinished and its connection would be closed.
    const { text, closed } = await rawConversation(
      tg.url,
      ['GET /walled/x HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /open/x HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
      100,
    );
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((answer) => answer.slice(0, 12))).toEqual(['HTTP/1.1 403', 'HTTP/1.1 401', 'HTTP/1.1 200']);
    for (const refusal of answers.slice(0, 2)) expect(refusal).not.toMatch(/^connection: close/im);
    expect(closed).toBe(true);
  });

  it('names the route in the access line, whatever phase refused', async () => {
    await callProtected(tg.url, undefined, '/walled/y');
    expect(tg.logs.filter((line) => line.msg === 'request' && line.path === '/walled/y').at(-1)).toMatchObject({ route: '/walled/', status: 403 });
  });
});
