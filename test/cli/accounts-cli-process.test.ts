import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { accountsYaml } from '../helpers/accounts.js';
import { errorOf, passwordGrant } from '../helpers/gateway.js';
import { GatewayProcess } from '../helpers/gateway-process.js';
import { runCli } from '../helpers/processes.js';


let gateway: GatewayProcess | undefined;
afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
});

describe('token-gateway users/apps with a real gateway process', () => {
  // Three commands and two gateway starts, each a process of its own: a wider bound than the default 20 s.
  it('a user and an app added from the command line get tokens once the gateway has restarted; a disabled user is refused', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'tg-accounts-e2e-'));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    const accounts = join(folder, 'accounts.yaml');
    await writeFile(accounts, await accountsYaml());
    const newcomers = { username: 'dave', password: 'dave-password-1', client_id: 'acme-client' };

    // Two processes editing at once: the lock file serialises them.
    const [user, app] = await Promise.all([
      runCli(['users', 'add', 'dave', '--accounts', accounts], `${newcomers.password}\n`),
      runCli(['apps', 'add', 'acme-client', '--accounts', accounts]),
    ]);
    expect(user).toMatchObject({ code: 0, stdout: 'added user dave (active)\n' });
    expect(app.code).toBe(0);
    const clientSecret = app.stdout.trimEnd();
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // Reloading accounts.yaml on change is another piece of work: a restart is what this test relies on.
    gateway = await GatewayProcess.start({ accounts });
    const granted = await passwordGrant(gateway.url, { ...newcomers, client_secret: clientSecret });
    expect(granted.status).toBe(200);
    expect(await granted.json()).toMatchObject({ token_type: 'Bearer', expires_in: '1800' });
    await gateway.stop();

    expect((await runCli(['users', 'disable', 'dave', '--accounts', accounts])).stdout).toBe('disabled user dave\n');
    gateway = await GatewayProcess.start({ accounts });
    const refused = await errorOf(await passwordGrant(gateway.url, { ...newcomers, client_secret: clientSecret }));
    expect(refused).toMatchObject({ status: 401, errorCode: 'USER_ACCOUNT_INVALID_STATE' });
    const logged = JSON.stringify(gateway.lines);
    expect(logged).not.toContain(clientSecret);
    expect(logged).not.toContain(newcomers.password);
    expect(gateway.failures()).toEqual([]);
  }, 60_000);
});
