import { describe, expect, it } from 'vitest';
import { accountsSchema } from '../../src/accounts/schema.js';

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g';
const user = (over: Record<string, unknown> = {}) => ({ username: 'carol', password_hash: HASH, status: 'active', ...over });
const app = (over: Record<string, unknown> = {}) => ({ client_id: 'portal', client_secret_hash: HASH, status: 'active', ...over });

const problems = (input: unknown) => {
  const result = accountsSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('accounts.yaml schema', () => {
  it('accepts users and apps, each app with no policies by default', () => {
    const parsed = accountsSchema.parse({ users: [user()], apps: [app()] });
    expect(parsed.apps[0]!.policies).toEqual([]);
  });

  it('reads an empty file as no users and no apps', () => {
    expect(accountsSchema.parse({})).toEqual({ users: [], apps: [] });
  });

  it.each([
    ['a plain-text password', { users: [user({ password_hash: 'hunter2' })] }, 'users.0.password_hash: expected an argon2id PHC string'],
    ['a bcrypt hash', { apps: [app({ client_secret_hash: '$2b$10$abcdefghijklmnopqrstuv' })] }, 'apps.0.client_secret_hash: expected an argon2id PHC string'],
    ['an empty status', { users: [user({ status: '' })] }, 'users.0.status:'],
    ['an empty username', { users: [user({ username: '' })] }, 'users.0.username:'],
    ['an unknown key', { users: [user({ role: 'admin' })] }, 'users.0:'],
    ['an unknown top-level key', { groups: [] }, ':'],
    ['a user listed twice', { users: [user(), user()] }, 'users.1.username: "carol" is listed twice'],
    ['an app listed twice', { apps: [app(), app({ status: 'suspended' })] }, 'apps.1.client_id: "portal" is listed twice'],
    ['a policy name that is not a name', { apps: [app({ policies: ['no spaces'] })] }, 'apps.0.policies.0:'],
  ])('refuses %s', (_case, input, problem) => {
    expect(problems(input).join('\n')).toContain(problem);
  });

  it('keeps any non-empty status: only "active" authenticates, the rest is the operator\'s vocabulary', () => {
    expect(accountsSchema.parse({ users: [user({ status: 'locked-by-ops' })] }).users[0]!.status).toBe('locked-by-ops');
  });
});

/** accounts.yaml `apps[].form_encoded` and `apps[].introspect` (docs/standard-oauth-clients.md). */
describe('accounts.yaml apps: standard OAuth 2.0 settings', () => {
  const app = (extra: Record<string, unknown>) => ({ apps: [{ client_id: 'partner', client_secret_hash: HASH, status: 'active', ...extra }] });

  it('leaves both unset by default: the gateway-wide oauth.form_encoded holds, introspection of own tokens only', () => {
    const [parsed] = accountsSchema.parse(app({})).apps;
    expect(parsed?.form_encoded).toBeUndefined();
    expect(parsed?.introspect).toBeUndefined();
  });

  it.each([[{ form_encoded: true }], [{ form_encoded: false }], [{ introspect: 'own' }], [{ introspect: 'any' }]])('accepts %j', (extra) => {
    expect(accountsSchema.parse(app(extra)).apps[0]).toMatchObject(extra);
  });

  it.each([[{ form_encoded: 'true' }], [{ introspect: 'all' }], [{ introspect: true }]])('refuses %j', (extra) => {
    expect(accountsSchema.safeParse(app(extra)).success).toBe(false);
  });
});
