import { hashSecret } from '../../src/accounts/secret-hash.js';

/** Test credentials; each secret is hashed once per test file. */
export const USER = { username: 'alice', password: 'alice-password-1' };
/** A second active user, for what must touch one user and not another (the admin kill switch). */
export const OTHER_USER = { username: 'bob', password: 'bob-password-1' };
export const SUSPENDED_USER = { username: 'mallory', password: 'mallory-password-1' };
export const APP = { client_id: 'app-one', client_secret: 'app-one-secret-XYZ' };
export const OTHER_APP = { client_id: 'app-two', client_secret: 'app-two-secret-XYZ' };
export const SUSPENDED_APP = { client_id: 'app-frozen', client_secret: 'app-frozen-secret' };

/** Every secret a test run uses, for the log-leak check. */
export const ALL_SECRETS = [USER.password, OTHER_USER.password, SUSPENDED_USER.password, APP.client_secret, OTHER_APP.client_secret, SUSPENDED_APP.client_secret];

let cached: Promise<string> | undefined;

/**
 * accounts.yaml with the test users and apps; `appPolicies` attaches policy
 * names to apps (`apps[].policies`), `appSettings` other keys of an app
 * (`form_encoded`, `introspect`), written as YAML flow values.
 */
export async function accountsYaml(appPolicies: Record<string, string[]> = {}, appSettings: Record<string, Record<string, string | boolean>> = {}): Promise<string> {
  const base = await baseAccountsYaml();
  return base
    .split('\n')
    .map((line) => {
      const clientId = /client_id: ([\w-]+),/.exec(line)?.[1];
      if (!clientId) return line;
      const names = appPolicies[clientId];
      const extra = [...(names ? [`policies: [${names.join(', ')}]`] : []), ...Object.entries(appSettings[clientId] ?? {}).map(([key, value]) => `${key}: ${String(value)}`)];
      return extra.length > 0 ? line.replace(/ }$/, `, ${extra.join(', ')} }`) : line;
    })
    .join('\n');
}

function baseAccountsYaml(): Promise<string> {
  cached ??= (async () => {
    const [alice, bob, mallory, one, two, frozen] = await Promise.all([
      hashSecret(USER.password),
      hashSecret(OTHER_USER.password),
      hashSecret(SUSPENDED_USER.password),
      hashSecret(APP.client_secret),
      hashSecret(OTHER_APP.client_secret),
      hashSecret(SUSPENDED_APP.client_secret),
    ]);
    return [
      'users:',
      `  - { username: ${USER.username}, password_hash: "${alice}", status: active }`,
      `  - { username: ${OTHER_USER.username}, password_hash: "${bob}", status: active }`,
      `  - { username: ${SUSPENDED_USER.username}, password_hash: "${mallory}", status: suspended }`,
      'apps:',
      `  - { client_id: ${APP.client_id}, client_secret_hash: "${one}", status: active }`,
      `  - { client_id: ${OTHER_APP.client_id}, client_secret_hash: "${two}", status: active }`,
      `  - { client_id: ${SUSPENDED_APP.client_id}, client_secret_hash: "${frozen}", status: locked }`,
    ].join('\n');
  })();
  return cached;
}
