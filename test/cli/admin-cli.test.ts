import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { decodeProtectedHeader } from 'jose';
import { stringify } from 'yaml';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { publicationLeadMs } from '../../src/keys/publication.js';
import { ManualClock } from '../helpers/clock.js';
import { APP, OTHER_APP, OTHER_USER, USER } from '../helpers/accounts.js';
import { bootGateway, callProtected, issueTokens, type TestGateway } from '../helpers/gateway.js';

/**
 * The admin commands run in-process through run(), as `token-gateway ...`
 * would, against a real gateway's admin listener.
 */

interface Outcome {
  code: number | 'running';
  stdout: string;
  stderr: string;
}

async function cli(...args: string[]): Promise<Outcome> {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const text = { stdout: '', stderr: '' };
  stdout.on('data', (chunk: Buffer) => (text.stdout += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (text.stderr += chunk.toString()));
  const code = await run(args, { stdin: Readable.from([]), stdout, stderr });
  return { code, ...text };
}

const TOKEN = randomBytes(32).toString('base64');
let dir: string;
let tokenFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tg-admin-cli-'));
  tokenFile = join(dir, 'admin-token');
  await writeFile(tokenFile, TOKEN);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A gateway.yaml for the CLI naming the running gateway's admin port (and a token file, when given). */
async function cliConfig(tg: TestGateway, admin: { host?: string; token_file?: string } = {}): Promise<string> {
  const port = Number(new URL(tg.gateway.adminUrl!).port);
  const file = join(dir, `gateway-${randomBytes(4).toString('hex')}.yaml`);
  await writeFile(file, stringify({ admin: { host: '127.0.0.1', port, ...admin } }));
  return file;
}

const login = (tg: TestGateway, user = USER, app = APP) => issueTokens(tg.url, { username: user.username, password: user.password, ...app });

describe('admin commands against a running gateway', () => {
  let tg: TestGateway;
  let config: string;
  beforeEach(async () => {
    tg = await bootGateway();
    config = await cliConfig(tg);
  });
  afterEach(() => tg.close());

  it('grants: a table of the active grants, filtered by user or client', async () => {
    await login(tg);
    await login(tg, USER, OTHER_APP);
    await login(tg, OTHER_USER);

    const all = await cli('grants', '--config', config);
    expect(all.code).toBe(0);
    const [header, ...lines] = all.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^GRANT\s+USER\s+CLIENT\s+LOGGED IN\s+LAST REFRESH\s+EXPIRES$/);
    expect(lines).toHaveLength(4);
    expect(lines.at(-1)).toBe('3 active grants');

    const bob = await cli('grants', '--config', config, '--user', OTHER_USER.username);
    expect(bob.stdout).toContain(`${OTHER_USER.username}  `);
    expect(bob.stdout).not.toContain(`${USER.username} `);
    expect(bob.stdout.trimEnd().split('\n').at(-1)).toBe('1 active grant');

    const other = await cli('grants', '--config', config, '--client', OTHER_APP.client_id, '--json');
    expect(JSON.parse(other.stdout)).toMatchObject({ total: 1, grants: [{ username: USER.username, clientId: OTHER_APP.client_id }] });
  });

  it('grants: says so when there are none, and when the list is cut at --limit', async () => {
    expect((await cli('grants', '--config', config)).stdout).toBe('no active grants\n');
    await login(tg);
    await login(tg);
    const cut = await cli('grants', '--config', config, '--limit', '1');
    expect(cut.stdout).toContain('showing the newest 1 of 2 active grants');
  });

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

  it('--admin names the listener instead of the config; a wildcard admin.host is reached on loopback', async () => {
    const elsewhere = join(dir, 'elsewhere.yaml');
    await writeFile(elsewhere, stringify({ admin: { host: '127.0.0.1', port: 1 } }));
    expect((await cli('grants', '--admin', tg.gateway.adminUrl!, '--config', elsewhere)).code).toBe(0);
    expect((await cli('grants', '--config', await cliConfig(tg, { host: '0.0.0.0' }))).code).toBe(0);
  });

  it("shows the admin API's 4xx message as sent, with exit code 1", async () => {
    const outcome = await cli('grants', '--config', config, '--limit', '0');
    expect(outcome).toMatchObject({ code: 1, stdout: '' });
    expect(outcome.stderr).toBe('token-gateway grants: "limit" must be a whole number from 1 to 10000\n');
  });
});


describe('keys rotate against a running gateway (on the test\'s clock)', () => {
  const LEAD = publicationLeadMs(24 * 3_600_000);
  let tg: TestGateway;
  let clock: ManualClock;
  let config: string;
  beforeEach(async () => {
    clock = new ManualClock();
    tg = await bootGateway({ clock });
    config = await cliConfig(tg);
  });
  afterEach(() => tg.close());

  it('keys rotate: new tokens carry the published next key, earlier ones keep verifying', async () => {
    const before = await login(tg);
    clock.advance(LEAD);
    const outcome = await cli('keys', 'rotate', '--config', config);
    expect(outcome.code).toBe(0);
    const kid = /^new signing key: (\S+) \(signs from /.exec(outcome.stdout)?.[1];
    expect(kid).toBeDefined();
    expect(outcome.stdout).toContain(decodeProtectedHeader(before.access_token).kid);
    expect(outcome.stdout).toMatch(/^confirmed by: {4}\S+$/m);
    expect(decodeProtectedHeader((await login(tg)).access_token).kid).toBe(kid);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(200);
    expect(outcome.stderr).toBe('');
  });

  it('keys rotate: says until when the current key goes on signing when the next one is too new', async () => {
    const before = await login(tg);
    const outcome = await cli('keys', 'rotate', '--config', config);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/^new signing key: \S+ \(signs only from \S+\)$/m);
    expect(outcome.stdout).toContain(`until then:      ${decodeProtectedHeader(before.access_token).kid} goes on signing`);
    expect(outcome.stderr).toMatch(/^note: /);
  });

  it('keys rotate --drop-previous: warns loudly, and tokens signed before are refused', async () => {
    const before = await login(tg);
    clock.advance(LEAD);
    const outcome = await cli('keys', 'rotate', '--drop-previous', '--config', config);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain(`dropped keys:    ${decodeProtectedHeader(before.access_token).kid}`);
    expect(outcome.stderr).toMatch(/^WARNING: every access token signed by a dropped key is refused/);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(401);
  });

  it('keys rotate --drop-previous too early: the refusal says from when, and about --emergency', async () => {
    const outcome = await cli('keys', 'rotate', '--drop-previous', '--config', config);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('"immediate": true');
  });

  it('keys rotate --emergency --drop-previous: a brand-new key at once, both warnings', async () => {
    const before = await login(tg);
    clock.advance(1_000);
    const outcome = await cli('keys', 'rotate', '--emergency', '--drop-previous', '--config', config);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toContain('brand-new key signs from now on');
    expect(outcome.stderr).toContain('every access token signed by a dropped key is refused');
    expect((await callProtected(tg.url, before.access_token)).status).toBe(401);
  });
});

describe('admin commands and the access rule', () => {
  let tg: TestGateway;
  beforeEach(async () => {
    tg = await bootGateway({ config: { admin: { host: '127.0.0.1', port: 0, token_file: tokenFile } } });
  });
  afterEach(() => tg.close());

  it('sends the token from admin.token_file', async () => {
    const outcome = await cli('grants', '--config', await cliConfig(tg, { token_file: tokenFile }));
    expect(outcome).toMatchObject({ code: 0, stdout: 'no active grants\n' });
  });

  it('says why a 401 happened: no token, or not the gateway token', async () => {
    const none = await cli('revoke', '--user', USER.username, '--config', await cliConfig(tg));
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('(401 admin token missing or wrong): no admin token was sent');
    const wrongFile = join(dir, 'wrong-token');
    await writeFile(wrongFile, randomBytes(32).toString('base64'));
    const wrong = await cli('keys', 'rotate', '--config', await cliConfig(tg, { token_file: wrongFile }));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`the token in ${wrongFile} is not the one this gateway was started with`);
  });
});

describe('admin commands without a gateway', () => {
  it('say that no gateway answers, and how to start one', async () => {
    const port = await closedPort();
    const outcome = await cli('grants', '--admin', `http://127.0.0.1:${port}`, '--config', await configWithoutToken());
    expect(outcome).toMatchObject({ code: 1, stdout: '' });
    expect(outcome.stderr).toBe(`token-gateway grants: no gateway answers at http://127.0.0.1:${port}; is it running? (token-gateway serve)\n`);
  });

  it('refuse a --config that does not exist, also with --admin (it names the token)', async () => {
    const missing = join(dir, 'no-such.yaml');
    const outcome = await cli('grants', '--admin', 'http://127.0.0.1:9901', '--config', missing);
    expect(outcome).toMatchObject({ code: 1, stderr: `${missing}: cannot read file (ENOENT)\n` });
  });

  it('report a config problem as file, line and key', async () => {
    const file = join(dir, 'broken.yaml');
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

/** A port nothing listens on: taken from the OS, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function configWithoutToken(): Promise<string> {
  const file = join(dir, 'plain.yaml');
  await writeFile(file, 'admin:\n  host: 127.0.0.1\n');
  return file;
}
