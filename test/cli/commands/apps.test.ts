import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountRegistry } from '../../../src/accounts/registry.js';
import { PORTAL, base64url43, cli, commentedAccountsText, expectCheckPasses, expectRefused, removeWorkspaces, workspace } from '../../helpers/accounts-cli.js';

let accountsText: string;
beforeAll(async () => {
  accountsText = await commentedAccountsText();
});
afterAll(removeWorkspaces);

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
