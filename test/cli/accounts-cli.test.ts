import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountRegistry } from '../../src/accounts/registry.js';
import { hashSecret } from '../../src/accounts/secret-hash.js';
import { run } from '../../src/cli/run.js';
import { eventually } from '../helpers/eventually.js';

interface Outcome {
  code: number | 'running';
  stdout: string;
  stderr: string;
}

/** One command in-process, with stdin piped (not a terminal) as in `printf ... | token-gateway ...`; its output is readable while it runs. */
function start(args: readonly string[], stdin = ''): { output: { stdout: string; stderr: string }; done: Promise<Outcome> } {
  const input = new PassThrough();
  input.end(stdin);
  const output = { stdout: '', stderr: '' };
  const sink = (stream: 'stdout' | 'stderr') =>
    new Writable({ write: (chunk: Buffer, _encoding, done) => ((output[stream] += chunk.toString()), done()) });
  const done = run(args, { stdin: input, stdout: sink('stdout'), stderr: sink('stderr') }).then((code) => ({ code, ...output }));
  return { output, done };
}

const cli = (args: readonly string[], stdin = ''): Promise<Outcome> => start(args, stdin).done;

const CAROL = { username: 'carol', password: 'carol-password-1' };
const PORTAL = { client_id: 'partner-portal', client_secret: 'partner-portal-secret-0123456789' };
const POLICY = 'policies:\n  - name: partner-guard\n    kind: regex-protection\n';

let accountsText: string;

/** A commented accounts.yaml as operators keep it: block entries, a one-line app, blank lines, comments everywhere. */
beforeAll(async () => {
  const [carol, portal] = await Promise.all([hashSecret(CAROL.password), hashSecret(PORTAL.client_secret)]);
  accountsText = [
    '# Staging accounts: edited by ops, reviewed in git.',
    '',
    'users:',
    '  # the partner team',
    '  - username: carol',
    `    password_hash: "${carol}"   # set 2024-05`,
    '    status: active',
    '',
    'apps:   # applications',
    `  - { client_id: partner-portal, client_secret_hash: "${portal}", status: active }  # one line each`,
    '# end of file',
    '',
  ].join('\n');
});

interface Workspace {
  config: string;
  accounts: string;
  /** `--config <gateway.yaml>` */
  target: string[];
}

const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

async function workspace(): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'tg-accounts-cli-'));
  folders.push(dir);
  await writeFile(join(dir, 'accounts.yaml'), accountsText);
  await chmod(join(dir, 'accounts.yaml'), 0o640);
  await writeFile(join(dir, 'gateway.yaml'), 'accounts: ./accounts.yaml\npolicies:\n  folder: ./policies\n');
  await mkdir(join(dir, 'policies'));
  await writeFile(join(dir, 'policies', 'guard.yaml'), POLICY);
  const config = join(dir, 'gateway.yaml');
  return { config, accounts: join(dir, 'accounts.yaml'), target: ['--config', config] };
}

async function expectCheckPasses(ws: Workspace): Promise<void> {
  const { code, stderr } = await cli(['check', '--config', ws.config]);
  expect(stderr).toBe('');
  expect(code).toBe(0);
}

/** Runs a command that must be refused: exit code, message, and the file byte for byte as it was. */
async function expectRefused(ws: Workspace, args: readonly string[], stdin: string, code: number, message: string | RegExp): Promise<void> {
  const before = await readFile(ws.accounts);
  const outcome = await cli(args, stdin);
  expect(outcome.code).toBe(code);
  expect(outcome.stdout).toBe('');
  expect(outcome.stderr).toMatch(message);
  expect((await readFile(ws.accounts)).equals(before)).toBe(true);
}

const base64url43 = /^[A-Za-z0-9_-]{43}$/;

describe('token-gateway users', () => {
  it('add: stores an argon2id hash of the password from stdin; the user authenticates; comments and layout stay', async () => {
    const ws = await workspace();
    const { code, stdout, stderr } = await cli(['users', 'add', 'dave', ...ws.target], 'dave password 1\n');
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'added user dave (active)\n', stderr: '' });
    const after = await readFile(ws.accounts, 'utf8');
    expect(after).not.toContain('dave password 1');
    // Only the three lines of the new entry were inserted, right after carol's; everything else is byte for byte the same.
    const lines = after.split('\n');
    expect(lines.slice(7, 10)).toEqual(['  - username: dave', expect.stringMatching(/^ {4}password_hash: "\$argon2id\$v=19\$[^"]+"$/), '    status: active']);
    expect([...lines.slice(0, 7), ...lines.slice(10)].join('\n')).toBe(accountsText);
    const registry = await AccountRegistry.load(ws.accounts);
    await expect(registry.authenticateUser('dave', 'dave password 1')).resolves.toMatchObject({ username: 'dave', status: 'active' });
    await expect(registry.authenticateUser(CAROL.username, CAROL.password)).resolves.toMatchObject({ username: 'carol' });
    await expectCheckPasses(ws);
  });

  it('add: reads the password like hash-secret (one trailing CRLF stripped, inner whitespace kept)', async () => {
    const ws = await workspace();
    expect((await cli(['users', 'add', 'erin', ...ws.target], ' two words \r\n')).code).toBe(0);
    await expect((await AccountRegistry.load(ws.accounts)).authenticateUser('erin', ' two words ')).resolves.toBeDefined();
  });

  it('add --status: a user added suspended cannot authenticate', async () => {
    const ws = await workspace();
    const { stdout } = await cli(['users', 'add', 'frank', '--status', 'suspended', ...ws.target], 'frank-pw\n');
    expect(stdout).toBe('added user frank (suspended)\n');
    await expect((await AccountRegistry.load(ws.accounts)).authenticateUser('frank', 'frank-pw')).rejects.toMatchObject({ code: 'USER_ACCOUNT_INVALID_STATE' });
  });

  it('disable: the user is refused as in invalid state; enable: it authenticates again; one line changes each time', async () => {
    const ws = await workspace();
    expect(await cli(['users', 'disable', 'carol', ...ws.target])).toEqual({ code: 0, stdout: 'disabled user carol\n', stderr: '' });
    expect(await readFile(ws.accounts, 'utf8')).toBe(accountsText.replace('    status: active\n', '    status: disabled\n'));
    await expect((await AccountRegistry.load(ws.accounts)).authenticateUser(CAROL.username, CAROL.password)).rejects.toMatchObject({
      code: 'USER_ACCOUNT_INVALID_STATE',
    });
    await expectCheckPasses(ws);
    expect(await cli(['users', 'enable', 'carol', ...ws.target])).toEqual({ code: 0, stdout: 'enabled user carol\n', stderr: '' });
    expect(await readFile(ws.accounts, 'utf8')).toBe(accountsText);
    await expect((await AccountRegistry.load(ws.accounts)).authenticateUser(CAROL.username, CAROL.password)).resolves.toBeDefined();
  });

  it('disable twice: says so, exits 0, leaves the file alone', async () => {
    const ws = await workspace();
    await cli(['users', 'disable', 'carol', ...ws.target]);
    const before = await stat(ws.accounts);
    expect(await cli(['users', 'disable', 'carol', ...ws.target])).toEqual({ code: 0, stdout: 'user carol is already disabled\n', stderr: '' });
    expect((await stat(ws.accounts)).ino).toBe(before.ino);
  });

  it('set-password: the new password authenticates, the old one no longer does', async () => {
    const ws = await workspace();
    expect(await cli(['users', 'set-password', 'carol', ...ws.target], 'carol-password-2\n')).toEqual({
      code: 0,
      stdout: 'changed the password of user carol\n',
      stderr: '',
    });
    const registry = await AccountRegistry.load(ws.accounts);
    await expect(registry.authenticateUser('carol', 'carol-password-2')).resolves.toBeDefined();
    await expect(registry.authenticateUser('carol', CAROL.password)).rejects.toMatchObject({ code: 'INVALID_USER_CREDENTIALS' });
    await expectCheckPasses(ws);
  });

  it.each([
    ['a duplicate username', ['users', 'add', 'carol'], 'pw\n', /token-gateway users add: user carol already exists/],
    ['an empty password', ['users', 'add', 'dave'], '\n', /token-gateway users add: the password is empty/],
    ['a username with a space', ['users', 'add', 'da ve'], 'pw\n', /username "da ve" contains whitespace or an invisible character/],
    ['a username with a zero-width space', ['users', 'add', 'da\u200bve'], 'pw\n', /contains whitespace or an invisible character/],
    ['an empty username', ['users', 'add', ''], 'pw\n', /username "" is empty/],
    ['a username of 129 characters', ['users', 'add', 'x'.repeat(129)], 'pw\n', /is longer than 128 characters/],
    ['a status with a space', ['users', 'add', 'dave', '--status', 'on hold'], 'pw\n', /status "on hold" contains whitespace/],
    ['disabling an unknown user', ['users', 'disable', 'nobody'], '', /token-gateway users disable: there is no user nobody/],
    ['enabling an unknown user', ['users', 'enable', 'nobody'], '', /there is no user nobody/],
    ['a new password for an unknown user', ['users', 'set-password', 'nobody'], 'pw\n', /there is no user nobody/],
    ['an app name given to users', ['users', 'disable', 'partner-portal'], '', /there is no user partner-portal/],
  ])('refuses %s with exit 1, the file unchanged', async (_case, args, stdin, message) => {
    const ws = await workspace();
    await expectRefused(ws, [...args, ...ws.target], stdin, 1, message);
  });

  it('concurrent adds of different users all land (the lock serialises them)', async () => {
    const ws = await workspace();
    const names = ['u1', 'u2', 'u3', 'u4'];
    const outcomes = await Promise.all(names.map((name) => cli(['users', 'add', name, '--accounts', ws.accounts], `${name}-pw\n`)));
    expect(outcomes.map((outcome) => outcome.code)).toEqual([0, 0, 0, 0]);
    const registry = await AccountRegistry.load(ws.accounts);
    for (const name of names) await expect(registry.authenticateUser(name, `${name}-pw`)).resolves.toBeDefined();
    expect(registry.counts.users).toBe(5);
    expect(existsSync(`${ws.accounts}.lock`)).toBe(false);
  });
});

describe('token-gateway apps', () => {
  it('add: prints only the new secret on stdout (43 base64url characters, 256 bits), which authenticates the app', async () => {
    const ws = await workspace();
    const { code, stdout, stderr } = await cli(['apps', 'add', 'acme-client', ...ws.target]);
    expect(code).toBe(0);
    const secret = stdout.slice(0, -1);
    expect(stdout).toBe(`${secret}\n`);
    expect(secret).toMatch(base64url43);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(stderr).toBe('added app acme-client (active); its client secret is on standard output and cannot be shown again\n');
    const after = await readFile(ws.accounts, 'utf8');
    expect(after).not.toContain(secret);
    // The new app is written like the one before it: one line.
    expect(after).toMatch(/# one line each\n {2}- \{ client_id: acme-client, client_secret_hash: "\$argon2id\$[^"]+", status: active \}\n# end of file\n$/);
    const registry = await AccountRegistry.load(ws.accounts);
    await expect(registry.authenticateApp('acme-client', secret)).resolves.toMatchObject({ client_id: 'acme-client', policies: [] });
    await expectCheckPasses(ws);
  });

  it('add: every secret is new', async () => {
    const ws = await workspace();
    const [one, two] = await Promise.all([cli(['apps', 'add', 'one', ...ws.target]), cli(['apps', 'add', 'two', ...ws.target])]);
    expect(one.stdout.trimEnd()).toMatch(base64url43);
    expect(two.stdout.trimEnd()).toMatch(base64url43);
    expect(one.stdout).not.toBe(two.stdout);
  });

  it('add --policies: attaches policies that exist; `check` agrees', async () => {
    const ws = await workspace();
    const { code, stderr } = await cli(['apps', 'add', 'acme-client', '--policies', 'partner-guard', ...ws.target]);
    expect(code).toBe(0);
    expect(stderr).toContain('added app acme-client (active, policies partner-guard)');
    expect((await AccountRegistry.load(ws.accounts)).findApp('acme-client')?.policies).toEqual(['partner-guard']);
    await expectCheckPasses(ws);
  });

  it('disable: the app is refused as in invalid state; enable: accepted again', async () => {
    const ws = await workspace();
    expect(await cli(['apps', 'disable', 'partner-portal', ...ws.target])).toEqual({ code: 0, stdout: 'disabled app partner-portal\n', stderr: '' });
    expect(await readFile(ws.accounts, 'utf8')).toBe(accountsText.replace('status: active }', 'status: disabled }'));
    await expect((await AccountRegistry.load(ws.accounts)).authenticateApp(PORTAL.client_id, PORTAL.client_secret)).rejects.toMatchObject({
      code: 'CLIENT_ACCOUNT_INVALID_STATE',
    });
    await expectCheckPasses(ws);
    expect((await cli(['apps', 'enable', 'partner-portal', ...ws.target])).stdout).toBe('enabled app partner-portal\n');
    await expect((await AccountRegistry.load(ws.accounts)).authenticateApp(PORTAL.client_id, PORTAL.client_secret)).resolves.toBeDefined();
  });

  it('rotate-secret: the new secret, printed once, authenticates; the old one is refused; status and policies stay', async () => {
    const ws = await workspace();
    const { code, stdout, stderr } = await cli(['apps', 'rotate-secret', 'partner-portal', ...ws.target]);
    expect(code).toBe(0);
    const secret = stdout.trimEnd();
    expect(secret).toMatch(base64url43);
    expect(stderr).toContain('cannot be shown again');
    expect(stderr).not.toContain(secret);
    const registry = await AccountRegistry.load(ws.accounts);
    await expect(registry.authenticateApp(PORTAL.client_id, secret)).resolves.toMatchObject({ status: 'active' });
    await expect(registry.authenticateApp(PORTAL.client_id, PORTAL.client_secret)).rejects.toMatchObject({ code: 'INVALID_CLIENT_CREDENTIALS' });
    await expectCheckPasses(ws);
  });

  it.each([
    ['a duplicate client_id', ['apps', 'add', 'partner-portal'], /token-gateway apps add: app partner-portal already exists/],
    ['a client_id with a tab', ['apps', 'add', 'acme\tclient'], /client_id "acme\\tclient" contains whitespace/],
    ['a policy that does not exist', ['apps', 'add', 'acme-client', '--policies', 'partner-guard,office-hours'], /apps\[1\]\.policies\[1\]: unknown policy "office-hours" \(defined: partner-guard\)/],
    ['a policy name the schema refuses', ['apps', 'add', 'acme-client', '--policies', 'Bad Name'], /apps\[1\]\.policies\[0\]: expected the name of a policy/],
    ['disabling an unknown app', ['apps', 'disable', 'nobody'], /token-gateway apps disable: there is no app nobody/],
    ['rotating the secret of an unknown app', ['apps', 'rotate-secret', 'nobody'], /there is no app nobody/],
  ])('refuses %s with exit 1, the file unchanged and no secret printed', async (_case, args, message) => {
    const ws = await workspace();
    await expectRefused(ws, [...args, ...ws.target], '', 1, message);
  });
});

describe('token-gateway users/apps: the accounts file', () => {
  it('--accounts edits a file directly, without gateway.yaml', async () => {
    const ws = await workspace();
    await unlink(ws.config);
    expect((await cli(['apps', 'disable', 'partner-portal', '--accounts', ws.accounts])).code).toBe(0);
    expect((await AccountRegistry.load(ws.accounts)).findApp('partner-portal')?.status).toBe('disabled');
  });

  it('keeps the mode, replaces the file by a rename and leaves no temporary or lock file', async () => {
    const ws = await workspace();
    const before = await stat(ws.accounts);
    expect((await cli(['users', 'disable', 'carol', ...ws.target])).code).toBe(0);
    const after = await stat(ws.accounts);
    expect(after.mode & 0o777).toBe(0o640);
    expect(after.ino).not.toBe(before.ino);
    expect((await readdir(join(ws.accounts, '..'))).sort()).toEqual(['accounts.yaml', 'gateway.yaml', 'policies']);
  });

  it('follows a symbolic link: the file it points to is replaced, the link stays a link', async () => {
    const ws = await workspace();
    const link = join(ws.accounts, '..', 'current-accounts.yaml');
    await symlink(ws.accounts, link);
    expect((await cli(['users', 'disable', 'carol', '--accounts', link])).code).toBe(0);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readFile(ws.accounts, 'utf8')).toBe(accountsText.replace('    status: active\n', '    status: disabled\n'));
  });

  it('starts an empty accounts file', async () => {
    const ws = await workspace();
    await writeFile(ws.accounts, '');
    expect((await cli(['users', 'add', 'dave', ...ws.target], 'dave-pw\n')).code).toBe(0);
    expect((await cli(['apps', 'add', 'acme-client', ...ws.target])).code).toBe(0);
    expect((await AccountRegistry.load(ws.accounts)).counts).toEqual({ users: 1, apps: 1 });
    await expectCheckPasses(ws);
  });

  it('waits for another edit holding the lock, says so, then edits', async () => {
    const ws = await workspace();
    await writeFile(`${ws.accounts}.lock`, '4242 other-edit\n');
    const pending = start(['users', 'disable', 'carol', '--accounts', ws.accounts]);
    await eventually(() => pending.output.stderr !== '');
    expect(pending.output.stderr).toBe(`waiting for another edit of ${ws.accounts} to finish (pid 4242)\n`);
    // Blocked on the lock: the file is as it was.
    expect(await readFile(ws.accounts, 'utf8')).toBe(accountsText);
    await unlink(`${ws.accounts}.lock`);
    const outcome = await pending.done;
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toBe(`waiting for another edit of ${ws.accounts} to finish (pid 4242)\n`);
  });

  it('refuses to edit an accounts file that is already invalid, pointing at the problem', async () => {
    const ws = await workspace();
    await writeFile(ws.accounts, accountsText.replace('    status: active\n', '    status: active\n    role: admin\n'));
    await expectRefused(ws, ['users', 'disable', 'carol', ...ws.target], '', 1, /accounts\.yaml:8: users\[0\]\.role: unknown key\ntoken-gateway users disable: nothing was changed\n$/);
  });

  it('exits 1 when the accounts file or gateway.yaml cannot be read', async () => {
    const ws = await workspace();
    const missing = await cli(['users', 'disable', 'carol', '--accounts', join(ws.accounts, '..', 'missing.yaml')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('missing.yaml: cannot read file (ENOENT)');
    await writeFile(ws.config, 'accounts: ./accounts.yaml\nlisten: { prot: 1 }\n');
    const invalid = await cli(['users', 'disable', 'carol', ...ws.target]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('listen.prot: unknown key');
  });

  it.each([
    [['users'], 'expected one of add, disable, enable, set-password'],
    [['users', 'remove', 'carol'], 'unknown subcommand "remove"'],
    [['users', 'add'], 'add needs a name'],
    [['users', 'add', 'a', 'b'], 'unexpected "b"'],
    [['users', 'disable', 'carol', '--status', 'x'], '--status is for add'],
    [['apps', 'disable', 'x', '--policies', 'a'], '--status and --policies are for add'],
    [['apps', 'add', 'x', '--secret', 'mine'], "Unknown option '--secret'"],
    [['apps', 'add', 'x', '--accounts', 'a.yaml', '--policies', 'p'], '--policies needs gateway.yaml'],
  ])('exits 2 with the usage for %j', async (args, message) => {
    const { code, stdout, stderr } = await cli(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
    expect(stderr).toContain(`usage: token-gateway ${args[0]} <subcommand>`);
  });

  it('--help prints the usage on stdout and exits 0; the top-level usage lists both commands', async () => {
    expect(await cli(['apps', '--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('rotate-secret CLIENT_ID') });
    expect((await cli(['help'])).stdout).toMatch(/users add\|disable\|enable\|set-password[\s\S]*apps add\|disable\|enable\|rotate-secret/);
  });
});
