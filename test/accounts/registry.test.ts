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

describe('hashing concurrency', () => {
  it('serves a burst of verifications completely, queued behind the gate', async () => {
    const hash = await hashSecret('burst');
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => verifySecret(hash, i % 2 === 0 ? 'burst' : 'nope')));
    expect(results).toEqual(Array.from({ length: 12 }, (_, i) => i % 2 === 0));
  });
});
