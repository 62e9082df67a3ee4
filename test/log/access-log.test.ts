import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SECRETS, APP } from '../helpers/accounts.js';
import { bootGateway, callProtected, issueTokens, passwordGrant, refreshGrant, revoke, type TestGateway } from '../helpers/gateway.js';

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
