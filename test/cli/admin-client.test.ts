import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { USER } from '../helpers/accounts.js';
import { adminCall } from '../helpers/admin.js';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';
import { cli, cliConfig, configWithoutToken, folder, gatewayForCli, makeFolder, removeFolder } from '../helpers/admin-cli.js';
import { refusingPort } from '../helpers/refusing-port.js';
import { startRawUpstream } from '../helpers/raw-upstream.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

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
    // The next key of a gateway just started was published too recently to drop the previous ones: a 409 of the gateway's.
    const { status, body } = await adminCall(gw.tg.gateway.adminUrl, 'POST', '/admin/v1/keys/rotate', { drop_previous: true });
    expect(status).toBe(409);
    const outcome = await cli('keys', 'rotate', '--drop-previous', '--config', gw.config);
    expect(outcome).toEqual({ code: 1, stdout: '', stderr: `token-gateway keys: ${body.error}\n` });
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

describe('admin commands pointed at something that is not the admin listener', () => {
  // An upstream answering every path 200 with JSON of its own, as a wrong port in --admin would find.
  let other: TestUpstream;
  beforeAll(async () => {
    other = await startUpstream();
  });
  afterAll(() => other.close());

  const commands: Array<[string, string[], string]> = [
    ['grants', ['grants'], '"total": required: expected a number'],
    ['keys', ['keys', 'rotate'], '"kid": required: expected a string'],
    ['revoke', ['revoke', '--user', 'x'], '"revoked": required: expected a number'],
  ];
  for (const [name, args, issue] of commands) {
    it(`${args.join(' ')} says so in one line with exit code 1, and prints no result`, async () => {
      const outcome = await cli(...args, '--admin', other.url, '--config', await configWithoutToken());
      expect(outcome).toEqual({
        code: 1,
        stdout: '',
        stderr: `token-gateway ${name}: ${other.url}: not an answer of the token-gateway admin API (200 with ${issue})\n`,
      });
    });
  }

  it('the same for a refusal without the admin API\'s "error", and for an answer that is not JSON', async () => {
    const raw = await startRawUpstream();
    try {
      const json = '{"message":"Not Found"}';
      raw.answer('grants', { bytes: `HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: ${json.length}\r\n\r\n${json}` });
      const config = await configWithoutToken();
      expect(await cli('grants', '--admin', raw.url, '--config', config)).toEqual({
        code: 1,
        stdout: '',
        stderr: `token-gateway grants: ${raw.url}: not an answer of the token-gateway admin API (404 without "error")\n`,
      });
      // Every other path gets a plain-text `ok`.
      expect((await cli('revoke', '--client', 'c', '--admin', raw.url, '--config', config)).stderr).toBe(
        `token-gateway revoke: ${raw.url}: not an answer of the token-gateway admin API (200 without a JSON object)\n`,
      );
    } finally {
      await raw.close();
    }
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
    // Before any call: with no gateway running, a call would say so instead.
    ['revoke with a blank --user', ['revoke', '--user', ''], '--user must not be blank, got ""'],
    ['revoke with a blank --client', ['revoke', '--client', ' '], '--client must not be blank, got " "'],
    ['grants with a blank --user', ['grants', '--user', ''], '--user must not be blank, got ""'],
    ['grants with a blank --client', ['grants', '--client', ' '], '--client must not be blank, got " "'],
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

