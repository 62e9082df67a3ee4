import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, OTHER_APP, OTHER_USER, USER } from '../../helpers/accounts.js';
import { callProtected } from '../../helpers/gateway.js';
import { cli, gatewayForCli, login, makeFolder, removeFolder } from '../../helpers/admin-cli.js';

beforeAll(makeFolder);
afterAll(removeFolder);

describe('token-gateway revoke (the kill switch)', () => {
  const gw = gatewayForCli();

  it("revoke --user: every grant of the user is refused, another user's is not", async () => {
    const alice = [await login(gw.tg), await login(gw.tg, USER, OTHER_APP)];
    const bob = await login(gw.tg, OTHER_USER);

    const outcome = await cli('revoke', '--user', USER.username, '--config', gw.config);

    expect(outcome).toMatchObject({ code: 0, stdout: `revoked 2 grants of user ${USER.username} (account status: active)\n` });
    expect(outcome.stderr).toContain(`token-gateway users disable ${USER.username}`);
    for (const tokens of alice) expect((await callProtected(gw.tg.url, tokens.access_token)).status).toBe(401);
    expect((await callProtected(gw.tg.url, bob.access_token)).status).toBe(200);
  });

  it('revoke --client: every grant of the client is refused', async () => {
    const tokens = await login(gw.tg, OTHER_USER);
    const outcome = await cli('revoke', '--client', APP.client_id, '--config', gw.config);
    expect(outcome).toMatchObject({ code: 0, stdout: `revoked 1 grant of client ${APP.client_id} (account status: active)\n` });
    expect((await callProtected(gw.tg.url, tokens.access_token)).status).toBe(401);
  });

});
