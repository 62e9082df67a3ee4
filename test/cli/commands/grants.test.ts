import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_APP, OTHER_USER, USER } from '../../helpers/accounts.js';
import { cli, gatewayForCli, login, makeFolder, removeFolder } from '../../helpers/admin-cli.js';

beforeAll(makeFolder);
afterAll(removeFolder);

describe('token-gateway grants (the active grants, from the admin API)', () => {
  const gw = gatewayForCli();

  it('grants: a table of the active grants, filtered by user or client', async () => {
    await login(gw.tg);
    await login(gw.tg, USER, OTHER_APP);
    await login(gw.tg, OTHER_USER);

    const all = await cli('grants', '--config', gw.config);
    expect(all.code).toBe(0);
    const [header, ...lines] = all.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^GRANT\s+USER\s+CLIENT\s+LOGGED IN\s+LAST REFRESH\s+EXPIRES$/);
    expect(lines).toHaveLength(4);
    expect(lines.at(-1)).toBe('3 active grants');

    const bob = await cli('grants', '--config', gw.config, '--user', OTHER_USER.username);
    expect(bob.stdout).toContain(`${OTHER_USER.username}  `);
    expect(bob.stdout).not.toContain(`${USER.username} `);
    expect(bob.stdout.trimEnd().split('\n').at(-1)).toBe('1 active grant');

    const other = await cli('grants', '--config', gw.config, '--client', OTHER_APP.client_id, '--json');
    expect(JSON.parse(other.stdout)).toMatchObject({ total: 1, grants: [{ username: USER.username, clientId: OTHER_APP.client_id }] });
  });

  it('grants: says so when there are none, and when the list is cut at --limit', async () => {
    expect((await cli('grants', '--config', gw.config)).stdout).toBe('no active grants\n');
    await login(gw.tg);
    await login(gw.tg);
    const cut = await cli('grants', '--config', gw.config, '--limit', '1');
    expect(cut.stdout).toContain('showing the newest 1 of 2 active grants');
  });

  it('grants: a --limit that is not a whole number from 1 to 10000 is the command line\'s mistake (exit 2), found before any call', async () => {
    for (const limit of ['abc', '0', '10001', '1.5', '-1']) {
      // An admin URL nobody listens on: the check must come first, or this would be exit 1 (unreachable).
      const wrong = await cli('grants', '--admin', 'http://127.0.0.1:9', `--limit=${limit}`);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain(`--limit must be a whole number from 1 to 10000, got "${limit}"`);
      expect(wrong.stderr).toContain('usage: token-gateway grants');
    }
  });

});
