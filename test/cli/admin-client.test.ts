import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { USER } from '../helpers/accounts.js';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';
import { cli, cliConfig, configWithoutToken, folder, gatewayForCli, makeFolder, removeFolder } from '../helpers/admin-cli.js';
import { refusingPort } from '../helpers/refusing-port.js';

beforeAll(makeFolder);
afterAll(removeFolder);

describe('the admin client against a running gateway', () => {
  const gw = gatewayForCli();

  it('--admin names the listener instead of the config; a wildcard admin.host is reached on loopback', async () => {
    const elsewhere = join(folder.dir, 'elsewhere.yaml');
    await writeFile(elsewhere, stringify({ admin: { host: '127.0.0.1', port: 1 } }));
    expect((await cli('grants', '--admin', gw.tg.gateway.adminUrl!, '--config', elsewhere)).code).toBe(0);
    expect((await cli('grants', '--config', await cliConfig(gw.tg, { host: '0.0.0.0' }))).code).toBe(0);
  });

  it("shows the admin API's 4xx message as sent, with exit code 1", async () => {
    // A blank name passes the command line and is refused by the gateway.
    const outcome = await cli('grants', '--config', gw.config, '--user', ' ');
    expect(outcome).toMatchObject({ code: 1, stdout: '' });
    expect(outcome.stderr).toBe('token-gateway grants: "username" must be a non-empty string\n');
  });
});

describe('admin commands and the access rule', () => {
  let tg: TestGateway;
  beforeEach(async () => {
    tg = await bootGateway({ config: { admin: { host: '127.0.0.1', port: 0, token_file: folder.tokenFile } } });
  });
  afterEach(() => tg.close());

  it('sends the token from admin.token_file', async () => {
    const outcome = await cli('grants', '--config', await cliConfig(tg, { token_file: folder.tokenFile }));
    expect(outcome).toMatchObject({ code: 0, stdout: 'no active grants\n' });
  });

  it('says why a 401 happened: no token, or not the gateway token', async () => {
    const none = await cli('revoke', '--user', USER.username, '--config', await cliConfig(tg));
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('(401 admin token missing or wrong): no admin token was sent');
    const wrongFile = join(folder.dir, 'wrong-token');
    await writeFile(wrongFile, randomBytes(32).toString('base64'));
    const wrong = await cli('keys', 'rotate', '--config', await cliConfig(tg, { token_file: wrongFile }));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`the token in ${wrongFile} is not the one this gateway was started with`);
  });
});

describe('admin commands without a gateway', () => {
  it('say that no gateway answers, and how to start one', async () => {
    const port = await refusingPort();
    const outcome = await cli('grants', '--admin', `http://127.0.0.1:${port}`, '--config', await configWithoutToken());
    expect(outcome).toMatchObject({ code: 1, stdout: '' });
    expect(outcome.stderr).toBe(`token-gateway grants: no gateway answers at http://127.0.0.1:${port}; is it running? (token-gateway serve)\n`);
  });

  it('refuse a --config that does not exist, also with --admin (it names the token)', async () => {
    const missing = join(folder.dir, 'no-such.yaml');
    const outcome = await cli('grants', '--admin', 'http://127.0.0.1:9901', '--config', missing);
    expect(outcome).toMatchObject({ code: 1, stderr: `${missing}: cannot read file (ENOENT)\n` });
  });

  it('report a config problem as file, line and key', async () => {
    const file = join(folder.dir, 'broken.yaml');
    await writeFile(file, 'admin:\n  port: many\n');
    const outcome = await cli('revoke', '--user', 'alice', '--config', file);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(new RegExp(`^${file}:2: admin.port: `));
  });

  const usageErrors: Array<[string, string[], string]> = [
    ['revoke without a target', ['revoke'], 'give exactly one of --user NAME or --client ID'],
    ['revoke with both targets', ['revoke', '--user', 'a', '--client', 'b'], 'give exactly one of --user NAME or --client ID'],
    ['keys without a subcommand', ['keys'], 'say what to do with the keys: rotate'],
    ['an unknown keys subcommand', ['keys', 'spin'], 'unknown keys command "spin"'],
    ['an unknown option', ['grants', '--everything'], "Unknown option '--everything'"],
    ['an --admin that is not a URL', ['grants', '--admin', 'localhost:9901'], '--admin must be an http:// or https:// URL'],
  ];
  for (const [name, args, message] of usageErrors) {
    it(`exit 2 with the usage for ${name}`, async () => {
      const outcome = await cli(...args);
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toContain(message);
      expect(outcome.stderr).toContain(`usage: token-gateway ${args[0]}`);
    });
  }

  it('print their usage for --help, and the main usage lists them', async () => {
    expect(await cli('revoke', '--help')).toMatchObject({ code: 0, stdout: expect.stringContaining('usage: token-gateway revoke --user NAME | --client ID') });
    const main = await cli('help');
    for (const command of ['keys rotate', 'revoke --user NAME', 'grants [--user NAME]']) expect(main.stdout).toContain(command);
  });
});

