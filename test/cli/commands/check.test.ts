import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { accountsYaml } from '../../helpers/accounts.js';
import { BIN, runCli } from '../../helpers/processes.js';

async function workspace(gatewayYaml: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tg-cli-'));
  await writeFile(join(dir, 'accounts.yaml'), await accountsYaml());
  await writeFile(join(dir, 'gateway.yaml'), gatewayYaml);
  return join(dir, 'gateway.yaml');
}

describe('token-gateway check', () => {
  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` (npm test does it)`);
  });

  it('exits 0 for a valid config and the files it names', async () => {
    const file = await workspace('accounts: ./accounts.yaml\n');
    const { code, stdout } = await runCli(['check', '--config', file]);
    expect(code).toBe(0);
    expect(stdout).toContain('ok:');
    expect(stdout).toContain('3 apps');
  });

  it('exits 1 naming the file, line, key and problem', async () => {
    const file = await workspace('accounts: ./accounts.yaml\ntokens:\n  access_ttl: soon\n');
    const { code, stderr } = await runCli(['check', '--config', file]);
    expect(code).toBe(1);
    expect(stderr).toContain(`${file}:3: tokens.access_ttl: expected a duration`);
  });

  it('checks that a Redis store has its secrets, without connecting and without printing them', async () => {
    const file = await workspace(
      'environment: uat\nstore: redis://:url-password@10.255.255.1:6379/0\nkeys: { encryption_key_file: ./kek }\naccounts: ./accounts.yaml\n',
    );
    const missing = await runCli(['check', '--config', file]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('keys.encryption_key_file: cannot read');
    await writeFile(join(dirname(file), 'kek'), randomBytes(32).toString('base64'));
    const { code, stdout, stderr } = await runCli(['check', '--config', file]);
    expect(code).toBe(0);
    expect(stdout).toContain('store redis 10.255.255.1:6379/0');
    expect(stdout + stderr).not.toContain('url-password');
  });

  it('lists every problem in one run, not only the first: the key-encryption key, the Redis password, the admin token', async () => {
    const file = await workspace(
      'environment: uat\nstore: { redis: { url: redis://10.255.255.1:6379/0, password_env: TG_CHECK_UNSET_PASSWORD } }\n' +
        'keys: { encryption_key_file: ./kek }\naccounts: ./accounts.yaml\nadmin: { token_file: ./admin-token }\n',
    );
    const { code, stderr } = await runCli(['check', '--config', file]);
    expect(code).toBe(1);
    expect(stderr).toContain('keys.encryption_key_file: cannot read');
    expect(stderr).toContain('TG_CHECK_UNSET_PASSWORD, which is not set in the environment');
    expect(stderr).toContain('admin.token_file: cannot read');
    expect(stderr.trim().split('\n')).toHaveLength(3);
  });

  it('refuses an admin.token_file that serve would refuse: missing, then too short, without printing it', async () => {
    const file = await workspace('accounts: ./accounts.yaml\nadmin: { token_file: ./admin-token }\n');
    const missing = await runCli(['check', '--config', file]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('admin.token_file: cannot read');
    await writeFile(join(dirname(file), 'admin-token'), 'short-secret\n');
    const short = await runCli(['check', '--config', file]);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('an admin token needs at least 16');
    expect(short.stdout + short.stderr).not.toContain('short-secret');
    await writeFile(join(dirname(file), 'admin-token'), `${randomBytes(32).toString('base64')}\n`);
    expect((await runCli(['check', '--config', file])).code).toBe(0);
  });

  it('validates the accounts file the config names', async () => {
    const file = await workspace('accounts: ./missing.yaml\n');
    const { code, stderr } = await runCli(['check', '--config', file]);
    expect(code).toBe(1);
    // At the key that named it, with the path it resolved to.
    expect(stderr).toMatch(/gateway\.yaml:1: accounts: cannot read \/.*\/missing\.yaml \(ENOENT\)\n/);
  });
});
