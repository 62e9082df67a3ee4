import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { AccountEditRefused, AccountsDocument } from '../../src/accounts/accounts-document.js';
import { accountsSchema } from '../../src/accounts/schema.js';
import { ConfigError } from '../../src/config/errors.js';

// Shaped like argon2id PHC strings: the schema checks the shape, these tests never verify them.
const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaA';
const NEW_HASH = '$argon2id$v=19$m=19456,t=2,p=1$bmV3c2FsdG5ld3NhbHQ$bmV3aGFzaG5ld2hhc2huZXdoYXNobmV3aGFzaA';

function edit(text: string, change: (document: AccountsDocument) => void): string {
  const document = AccountsDocument.parse(text, 'accounts.yaml');
  change(document);
  const rendered = document.render();
  accountsSchema.parse(parse(rendered) ?? {});
  return rendered;
}

const BLOCK = [
  '# Staging accounts. Reviewed in git.',
  '',
  'users:    # people',
  '',
  '    # the partner team',
  '    -   username: carol',
  `        password_hash: "${HASH}"   # set 2024-05`,
  "        status: 'active'",
  '',
  '',
  '    # - username: old-account (kept for the record)',
  'apps:',
  `  - { client_id: partner-portal,  client_secret_hash: "${HASH}", status: active }  # one line`,
  '# end',
  '',
].join('\n');

describe('AccountsDocument: edits keep the file as written', () => {
  it('adds a block entry under the last one, indented like it, and changes nothing else', () => {
    const after = edit(BLOCK, (document) => document.add('user', { name: 'dave', hash: NEW_HASH, status: 'active' }));
    const lines = BLOCK.split('\n');
    const added = ['    -   username: dave', `        password_hash: "${NEW_HASH}"`, '        status: active'];
    expect(after).toBe([...lines.slice(0, 8), ...added, ...lines.slice(8)].join('\n'));
  });

  it('adds a one-line flow entry after a one-line flow entry, keeping its trailing comment', () => {
    const after = edit(BLOCK, (document) => document.add('app', { name: 'acme', hash: NEW_HASH, status: 'active', policies: ['office-hours', 'guard'] }));
    expect(after).toBe(
      BLOCK.replace(
        '# one line\n',
        `# one line\n  - { client_id: acme, client_secret_hash: "${NEW_HASH}", status: active, policies: [office-hours, guard] }\n`,
      ),
    );
  });

  it('changes one value in place, in the quotes it had', () => {
    expect(edit(BLOCK, (document) => document.set('user', 'carol', 'status', 'disabled'))).toBe(BLOCK.replace("'active'", "'disabled'"));
    expect(edit(BLOCK, (document) => document.set('app', 'partner-portal', 'status', 'disabled'))).toBe(BLOCK.replace('status: active }', 'status: disabled }'));
    expect(edit(BLOCK, (document) => document.set('user', 'carol', 'hash', NEW_HASH))).toBe(BLOCK.replace(`"${HASH}"   #`, `"${NEW_HASH}"   #`));
  });

  it('changes nothing when the value is already set', () => {
    const document = AccountsDocument.parse(BLOCK, 'accounts.yaml');
    document.set('user', 'carol', 'status', 'active');
    expect(document.changed).toBe(false);
    expect(document.render()).toBe(BLOCK);
  });

  it.each([['true'], ['123'], ['a:b'], ['#hash'], ['x, y'], ['ünïcödé'], ["o'brien"], ['"quoted"'], ['user@example.com']])(
    'stores the name %j so that it reads back as the same string',
    (name) => {
      const after = edit(BLOCK, (document) => document.add('user', { name, hash: NEW_HASH, status: 'active' }));
      expect((parse(after) as { users: Array<{ username: unknown }> }).users.at(-1)?.username).toBe(name);
    },
  );

  it('appends after a last line without a newline', () => {
    const text = `users:\n  - username: carol\n    password_hash: "${HASH}"\n    status: active`;
    expect(edit(text, (document) => document.add('user', { name: 'dave', hash: NEW_HASH, status: 'active' }))).toBe(
      `${text}\n  - username: dave\n    password_hash: "${NEW_HASH}"\n    status: active`,
    );
  });

  it.each([
    ['an empty file', ''],
    ['a file of comments', '# nothing yet\n'],
    ['an empty flow list', '# apps only\nusers: []   # none yet\napps: []\n'],
    ['no users key', `apps:\n  - client_id: x\n    client_secret_hash: "${HASH}"\n    status: active\n`],
  ])('starts the list in %s, comments kept', (_case, text) => {
    const after = edit(text, (document) => document.add('user', { name: 'dave', hash: NEW_HASH, status: 'active' }));
    const data = parse(after) as { users: unknown[] };
    expect(data.users).toEqual([{ username: 'dave', password_hash: NEW_HASH, status: 'active' }]);
    for (const comment of text.match(/#.*$/gm) ?? []) expect(after).toContain(comment);
  });

  it('refuses a name that exists and a name that does not, naming them', () => {
    const document = AccountsDocument.parse(BLOCK, 'accounts.yaml');
    expect(() => document.add('user', { name: 'carol', hash: NEW_HASH, status: 'active' })).toThrow(new AccountEditRefused('user carol already exists'));
    expect(() => document.set('app', 'nobody', 'status', 'disabled')).toThrow(new AccountEditRefused('there is no app nobody'));
    expect(() => document.statusOf('user', 'nobody')).toThrow(AccountEditRefused);
    expect(document.changed).toBe(false);
  });

  it('refuses to edit a file that is not valid already, saying where', () => {
    expect(() => AccountsDocument.parse('users:\n  - username: carol\n    password_hash: plain-text\n    status: active\n', 'accounts.yaml')).toThrow(ConfigError);
    expect(() => AccountsDocument.parse('users: [\n', 'accounts.yaml')).toThrow(ConfigError);
  });
});
