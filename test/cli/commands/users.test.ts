import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountRegistry } from '../../../src/accounts/registry.js';
import { CAROL, cli, commentedAccountsText, expectCheckPasses, expectRefused, removeWorkspaces, workspace } from '../../helpers/accounts-cli.js';

let accountsText: string;
beforeAll(async () => {
  accountsText = await commentedAccountsText();
});
afterAll(removeWorkspaces);

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
