import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP, OTHER_APP, OTHER_USER, USER } from '../../helpers/accounts.js';
import { bootGateway, callProtected, type TestGateway } from '../../helpers/gateway.js';
import { cli, cliConfig, login, makeFolder, removeFolder } from '../../helpers/admin-cli.js';

beforeAll(makeFolder);
afterAll(removeFolder);

describe('token-gateway revoke (the kill switch)', () => {
  let tg: TestGateway;
  let config: string;
  beforeEach(async () => {
    tg = await bootGateway();
    config = await cliConfig(tg);
  });
  afterEach(() => tg.close());

  it("revoke --user: every grant of the user is refused, another user's is not", async () => {
    const alice = [await login(tg), await login(tg, USER, OTHER_APP)];
    const bob = await login(tg, OTHER_USER);

    const outcome = await cli('revoke', '--user', USER.username, '--config', config);

    expect(outcome).toMatchObject({ code: 0, stdout: `revoked 2 grants of user ${USER.username} (account status: active)\n` });
    expect(outcome.stderr).toContain(`token-gateway users disable ${USER.username}`);
    for (const tokens of alice) expect((await callProtected(tg.url, tokens.access_token)).status).toBe(401);
    expect((await callProtected(tg.url, bob.access_token)).status).toBe(200);
  });

  it('revoke --client: every grant of the client is refused', async () => {
    const tokens = await login(tg, OTHER_USER);
    const outcome = await cli('revoke', '--client', APP.client_id, '--config', config);
    expect(outcome).toMatchObject({ code: 0, stdout: `revoked 1 grant of client ${APP.client_id} (account status: active)\n` });
    expect((await callProtected(tg.url, tokens.access_token)).status).toBe(401);
  });

});
