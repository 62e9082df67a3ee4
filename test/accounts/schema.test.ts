import { describe, expect, it } from 'vitest';
import { accountsSchema } from '../../src/accounts/schema.js';

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
const app = (extra: Record<string, unknown>) => ({ apps: [{ client_id: 'partner', client_secret_hash: HASH, status: 'active', ...extra }] });

/** accounts.yaml `apps[].form_encoded` and `apps[].introspect` (docs/standard-oauth-clients.md). */
describe('accounts.yaml apps: standard OAuth 2.0 settings', () => {
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
