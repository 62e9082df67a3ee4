import { describe, expect, it } from 'vitest';
import { DEFAULT_REASONS, isReasoned, type Reasoned } from '../../src/config/defaults.js';
import { gatewayConfigSchema } from '../../src/config/schema.js';
import { accountsReference, GATEWAY_KEYS, gatewayReference, gatewayRows, reasonFor } from '../../src/docs/config-reference.js';

describe('docs/config-reference: the reference tables of docs/configuration.md', () => {
  it('has a region for every top-level key of gateway.yaml, in schema order', () => {
    expect(GATEWAY_KEYS).toEqual(Object.keys(gatewayConfigSchema.shape));
  });

  it.each<[string, string | number | boolean | undefined]>([
    // [the key as gateway.yaml writes it, the default whose reason is printed beside it]
    ['listen.port', 8080],
    ['tokens.access_ttl', '30m'],
    ['store', 'memory'],
    // Where DEFAULT_REASONS keeps a reason under another path than gateway.yaml's.
    ['store.redis.command_timeout', '1s'],
    ['routes[].timeout', '30s'],
    ['policies.folder', './policies'],
    // The folder's reason is printed once, at policies.folder, not at the key that may also be written as the folder.
    ['policies', undefined],
    // A group is no leaf, and a key without a documented default has no reason.
    ['listen', undefined],
    ['routes[].path', undefined],
    ['issuer', undefined],
    ['nowhere.at.all', undefined],
  ])('finds the reason for %s: the default %j', (key, value) => {
    expect(reasonFor(key)?.value).toBe(value);
  });

  it('prints every reason of DEFAULT_REASONS once, beside the key whose default it explains', () => {
    const leaves: Array<Reasoned<string | number | boolean>> = [];
    const walk = (node: unknown): void => {
      if (isReasoned(node)) leaves.push(node);
      else for (const child of Object.values(node as object)) walk(child);
    };
    walk(DEFAULT_REASONS);
    const printed = GATEWAY_KEYS.flatMap(gatewayRows).flatMap((row) => {
      const reason = reasonFor(row.key);
      return reason ? [{ row, reason }] : [];
    });
    for (const { row, reason } of printed) expect(row.default, row.key).toBe(`\`${reason.value}\``);
    expect(printed.map(({ reason }) => reason).sort((a, b) => a.why.localeCompare(b.why))).toEqual(leaves.sort((a, b) => a.why.localeCompare(b.why)));
  });

  it('adds the "why this default" column only to a table that has a reason to print', () => {
    expect(gatewayReference('listen').split('\n')[0]).toBe('| key | value | default | meaning | why this default |');
    expect(gatewayReference('listen')).toContain("The port the README's curl walk-through uses.");
    expect(gatewayReference('issuer').split('\n')[0]).toBe('| key | value | default | meaning |');
  });

  it('gives a key of gateway.yaml its rows by dotted path, and refuses a key it does not have', () => {
    expect(gatewayRows('listen').map((row) => row.key)).toEqual(['listen', 'listen.host', 'listen.port']);
    expect(gatewayRows('routes').map((row) => row.key)).toContain('routes[].upstream');
    expect(() => gatewayRows('nonsense')).toThrow('gateway.yaml has no key nonsense');
  });

  it('documents accounts.yaml: its users and apps, each key of each', () => {
    const keys = accountsReference().split('\n').slice(2).map((line) => /^\| `([^`]+)`/.exec(line)?.[1]);
    expect(keys).toEqual(expect.arrayContaining(['users', 'users[].username', 'users[].password_hash', 'users[].status', 'apps', 'apps[].client_id', 'apps[].client_secret_hash', 'apps[].form_encoded']));
  });
});
