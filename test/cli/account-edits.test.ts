import { lstat, readdir, readFile, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountRegistry } from '../../src/accounts/registry.js';
import { eventually } from '../helpers/eventually.js';
import { cli, commentedAccountsText, expectCheckPasses, expectRefused, removeWorkspaces, start, workspace } from '../helpers/accounts-cli.js';

let accountsText: string;
beforeAll(async () => {
  accountsText = await commentedAccountsText();
});
afterAll(removeWorkspaces);

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
