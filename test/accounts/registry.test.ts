import { describe, expect, it } from 'vitest';
import { AccountRegistry } from '../../src/accounts/registry.js';
import { hashSecret, verifySecret } from '../../src/accounts/secret-hash.js';
import { parseYamlText } from '../../src/config/yaml-file.js';
import { accountsSchema } from '../../src/accounts/schema.js';
import { ConfigError, formatIssue } from '../../src/config/errors.js';

describe('secret hashes', () => {
  it('produces an argon2id PHC string that verifies only its own secret', async () => {
    const hash = await hashSecret('s3cret');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifySecret(hash, 's3cret')).toBe(true);
    expect(await verifySecret(hash, 's3cret ')).toBe(false);
    expect(await verifySecret('not-a-hash', 's3cret')).toBe(false);
  });
});

describe('accounts.yaml', () => {
  const issues = (text: string) => {
    try {
      parseYamlText(text, 'accounts.yaml', accountsSchema);
    } catch (error) {
      return (error as ConfigError).issues.map(formatIssue).join('\n');
    }
    return '';
  };

  it('refuses a plain-text secret, naming the line and key', () => {
    expect(issues('apps:\n  - client_id: a\n    client_secret_hash: hunter2\n    status: active\n')).toContain(
      'accounts.yaml:3: apps[0].client_secret_hash: expected an argon2id PHC string',
    );
  });

  it('refuses duplicates and unknown keys', async () => {
    const hash = await hashSecret('x');
    const text = `users:\n  - { username: a, password_hash: "${hash}", status: active }\n  - { username: a, password_hash: "${hash}", status: active, role: admin }\n`;
    const found = issues(text);
    expect(found).toContain('accounts.yaml:3: users[1].role: unknown key');
    expect(issues(`users:\n  - { username: a, password_hash: "${hash}", status: active }\n  - { username: a, password_hash: "${hash}", status: active }\n`)).toContain(
      'users[1].username: "a" is listed twice',
    );
  });

  it('authenticates only active accounts, after checking the credentials', async () => {
    const hash = await hashSecret('pw');
    const registry = await AccountRegistry.fromAccounts({
      users: [
        { username: 'on', password_hash: hash, status: 'active' },
        { username: 'off', password_hash: hash, status: 'locked' },
      ],
      apps: [],
    });
    await expect(registry.authenticateUser('on', 'pw')).resolves.toMatchObject({ username: 'on' });
    await expect(registry.authenticateUser('off', 'wrong')).rejects.toMatchObject({ code: 'INVALID_USER_CREDENTIALS' });
    await expect(registry.authenticateUser('off', 'pw')).rejects.toMatchObject({ code: 'USER_ACCOUNT_INVALID_STATE' });
    await expect(registry.authenticateUser('nobody', 'pw')).rejects.toMatchObject({ code: 'INVALID_USER_CREDENTIALS' });
  });
});

describe('verified client secrets', () => {
  async function countingRegistry(status = 'active') {
    const hash = await hashSecret('app-secret');
    const verified: string[] = [];
    const registry = await AccountRegistry.fromAccounts(
      { users: [{ username: 'u', password_hash: hash, status: 'active' }], apps: [{ client_id: 'app', client_secret_hash: hash, status, policies: [] }] },
      (phcHash, secret) => {
        verified.push(secret);
        return verifySecret(phcHash, secret);
      },
    );
    return { registry, verified };
  }

  it('verifies an app secret with argon2 once, then recognises it without hashing', async () => {
    const { registry, verified } = await countingRegistry();
    for (let i = 0; i < 3; i++) await expect(registry.authenticateApp('app', 'app-secret')).resolves.toMatchObject({ client_id: 'app' });
    expect(verified).toEqual(['app-secret']);
  });

  it('still hashes every wrong secret, before and after a success, and never lets one through', async () => {
    const { registry, verified } = await countingRegistry();
    await expect(registry.authenticateApp('app', 'guess-1')).rejects.toMatchObject({ code: 'INVALID_CLIENT_CREDENTIALS' });
    await registry.authenticateApp('app', 'app-secret');
    await expect(registry.authenticateApp('app', 'guess-2')).rejects.toMatchObject({ code: 'INVALID_CLIENT_CREDENTIALS' });
    await expect(registry.authenticateApp('app', 'app-secret ')).rejects.toMatchObject({ code: 'INVALID_CLIENT_CREDENTIALS' });
    expect(verified).toEqual(['guess-1', 'app-secret', 'guess-2', 'app-secret ']);
  });

  it('never caches user passwords: each password grant pays its hash', async () => {
    const { registry, verified } = await countingRegistry();
    await registry.authenticateUser('u', 'app-secret');
    await registry.authenticateUser('u', 'app-secret');
    expect(verified).toEqual(['app-secret', 'app-secret']);
  });

  it('checks the status of a remembered app every time', async () => {
    const { registry } = await countingRegistry('suspended');
    await expect(registry.authenticateApp('app', 'app-secret')).rejects.toMatchObject({ code: 'CLIENT_ACCOUNT_INVALID_STATE' });
    await expect(registry.authenticateApp('app', 'app-secret')).rejects.toMatchObject({ code: 'CLIENT_ACCOUNT_INVALID_STATE' });
  });
});

describe('hashing concurrency', () => {
  it('serves a burst of verifications completely, queued behind the gate', async () => {
    const hash = await hashSecret('burst');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => verifySecret(hash, i % 2 === 0 ? 'burst' : 'nope')));
    expect(results).toEqual(Array.from({ length: 12 }, (_, i) => i % 2 === 0));
  });
});
