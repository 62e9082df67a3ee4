import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SECRETS, APP, OTHER_APP } from '../helpers/accounts.js';
import { bootGateway, callProtected, issueTokens, passwordGrant, refreshGrant, revoke, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';

describe('access log', () => {
  let tg: TestGateway;
  const tokens: string[] = [];
  beforeAll(async () => {
    tg = await bootGateway();
    const first = await issueTokens(tg.url);
    const second = (await (await refreshGrant(tg.url, first.refresh_token)).json()) as typeof first;
    tokens.push(first.access_token, first.refresh_token, second.access_token, second.refresh_token);
    await callProtected(tg.url, second.access_token);
    await passwordGrant(tg.url, { password: 'wrong-password-typed' });
    // A secret typed into the client_id field must not land in the log either.
    await passwordGrant(tg.url, { client_id: 'secret-typed-as-client-id' });
    await revoke(tg.url, second.refresh_token);
    await callProtected(tg.url, second.access_token);
    await fetch(`${tg.url}/business/score/v2/directors?api_key=query-secret-value`, { headers: { authorization: `Bearer ${second.access_token}` } });
  });
  afterAll(() => tg.close());

  it('writes one structured line per request with id, route, status, latency and client', () => {
    const lines = tg.logs.filter((line) => line.msg === 'request');
    expect(lines).toHaveLength(8);
    for (const line of lines) {
      expect(line).toMatchObject({ requestId: expect.any(String), method: expect.any(String), status: expect.any(Number), latencyMs: expect.any(Number) });
    }
    expect(lines.find((line) => line.status === 401 && line.route === '/business/score/v2/')).toMatchObject({ errorCode: 'ACCESS_TOKEN_INVALID', detail: 'token revoked' });
    expect(lines.find((line) => line.route === '/oauth2/v1/token')).toMatchObject({ clientId: APP.client_id });
  });

  it('never contains a password, client secret, token or query string', () => {
    const everything = tg.rawLogs.join('\n');
    for (const secret of [...ALL_SECRETS, ...tokens, 'wrong-password-typed', 'secret-typed-as-client-id', 'query-secret-value']) {
      expect(everything).not.toContain(secret);
    }
  });
});

describe('access log: the policy that refused a request', () => {
  let tg: TestGateway;
  const statusOf = async (response: Response) => ({ status: response.status, requestId: response.headers.get('x-request-id') });
  const lineOf = (requestId: string | null) => tg.logs.find((line) => line.msg === 'request' && line.requestId === requestId);

  beforeAll(async () => {
    tg = await bootGateway({
      policies: {
        guards: {
          policies: [
            { name: 'no-injection', kind: 'regex-protection', builtin: ['sql-injection'] },
            { name: 'nobody', kind: 'ip-range', rules: [{ allow: '10.0.0.0/8' }], default: 'deny' },
            { name: 'by-client', kind: 'spike-arrest', rate: '1000ps', identifier: 'client_id' },
            { name: 'shallow', kind: 'json-threat', max_depth: 3 },
          ],
        },
      },
      appPolicies: { [OTHER_APP.client_id]: ['nobody'] },
      config: (upstream) => ({
        policies: { defaults: ['no-injection'] },
        routes: [
          { path: '/business/score/v2/', upstream, timeout: '2s', policies: ['by-client', 'shallow'] },
          { path: '/private/', upstream, timeout: '2s', policies: ['nobody'] },
        ],
      }),
    });
  });
  afterAll(() => tg.close());

  it('names the policy of a default, a route and an app chain, beside the error code', async () => {
    const { access_token } = await issueTokens(tg.url);
    const cases = [
      [await statusOf(await fetch(`${tg.url}/oauth2/v1/keys?q=' OR 1=1 --`)), { status: 401, route: '/oauth2/v1/keys', errorCode: 'REGEX_THREAT', policy: 'no-injection' }],
      [await statusOf(await callProtected(tg.url, access_token, '/private/x')), { status: 403, route: '/private/', errorCode: 'IP_RANGE_FORBIDDEN', policy: 'nobody' }],
      [await statusOf(await passwordGrant(tg.url, { ...OTHER_APP })), { status: 403, route: '/oauth2/v1/token', errorCode: 'IP_RANGE_FORBIDDEN', policy: 'nobody', clientId: OTHER_APP.client_id }],
    ] as const;
    for (const [response, expected] of cases) {
      expect(response.status).toBe(expected.status);
      await eventually(() => lineOf(response.requestId) !== undefined);
      expect(lineOf(response.requestId)).toMatchObject({ ...expected, detail: expect.stringMatching(new RegExp(`^policy ${expected.policy}: `)) });
    }
  });

  it('names a policy that refused while the body streamed in', async () => {
    const { access_token } = await issueTokens(tg.url);
    const deep = await statusOf(
      await fetch(`${tg.url}/business/score/v2/directors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ a: { b: { c: { d: 1 } } } }),
      }),
    );
    await eventually(() => lineOf(deep.requestId) !== undefined);
    expect(lineOf(deep.requestId)).toMatchObject({ status: 401, errorCode: 'JSON_THREAT', policy: 'shallow', detail: expect.stringMatching(/^policy shallow: /) });
  });

  it('names no policy when what a policy consulted failed (the Bearer token), and says where in the detail', async () => {
    const failed = await statusOf(await callProtected(tg.url, 'not-a-token'));
    await eventually(() => lineOf(failed.requestId) !== undefined);
    expect(lineOf(failed.requestId)).toMatchObject({ status: 401, errorCode: 'ACCESS_TOKEN_INVALID', detail: expect.stringMatching(/^policy by-client: /) });
    expect(lineOf(failed.requestId)).not.toHaveProperty('policy');
  });

  it('leaves `policy` out of lines no policy refused', async () => {
    const { access_token } = await issueTokens(tg.url);
    const passed = await statusOf(await callProtected(tg.url, access_token));
    const wrong = await statusOf(await passwordGrant(tg.url, { password: 'not-the-password' }));
    await eventually(() => lineOf(passed.requestId) !== undefined && lineOf(wrong.requestId) !== undefined);
    expect(lineOf(passed.requestId)).toMatchObject({ status: 200, clientId: APP.client_id });
    expect(lineOf(passed.requestId)).not.toHaveProperty('policy');
    expect(lineOf(wrong.requestId)).toMatchObject({ status: 401, errorCode: 'INVALID_USER_CREDENTIALS' });
    expect(lineOf(wrong.requestId)).not.toHaveProperty('policy');
  });
});
