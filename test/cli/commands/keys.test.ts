import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtectedHeader } from 'jose';
import { bootGateway, callProtected, type TestGateway } from '../../helpers/gateway.js';
import { cli, cliConfig, login, makeFolder, removeFolder } from '../../helpers/admin-cli.js';

beforeAll(makeFolder);
afterAll(removeFolder);

describe('token-gateway keys rotate', () => {
  let tg: TestGateway;
  let config: string;
  beforeEach(async () => {
    tg = await bootGateway();
    config = await cliConfig(tg);
  });
  afterEach(() => tg.close());

  it('keys rotate: new tokens carry the new key, earlier ones keep verifying', async () => {
    const before = await login(tg);
    const outcome = await cli('keys', 'rotate', '--config', config);
    expect(outcome.code).toBe(0);
    const kid = /^new signing key: (\S+) /.exec(outcome.stdout)?.[1];
    expect(kid).toBeDefined();
    expect(outcome.stdout).toContain(decodeProtectedHeader(before.access_token).kid);
    expect(decodeProtectedHeader((await login(tg)).access_token).kid).toBe(kid);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(200);
    expect(outcome.stderr).toBe('');
  });

  it('keys rotate --drop-previous: warns loudly, and tokens signed before are refused', async () => {
    const before = await login(tg);
    const outcome = await cli('keys', 'rotate', '--drop-previous', '--config', config);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain(`dropped keys:    ${decodeProtectedHeader(before.access_token).kid}`);
    expect(outcome.stderr).toMatch(/^WARNING: every access token signed by a dropped key is refused/);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(401);
  });

});
