import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, formatIssue } from '../../src/config/errors.js';
import { loadGatewayConfig } from '../../src/config/load.js';
import { loadPolicySetOffline } from '../../src/policies/offline.js';
import { configFile } from '../helpers/config-file.js';

async function configWithPolicies(yaml: string, policies: string) {
  const file = await configFile(`policies: { folder: ./policies, defaults: [guard] }\n${yaml}`);
  await mkdir(join(dirname(file), 'policies'));
  await writeFile(join(dirname(file), 'policies', 'p.yaml'), policies);
  return loadGatewayConfig(file);
}

describe('the policy set as `check` builds it, without a store', () => {
  it('builds the set serve would, with its chains', async () => {
    const config = await configWithPolicies('store: redis://10.255.255.1:6379\nenvironment: uat\n', 'policies:\n  - { name: guard, kind: regex-protection }\n  - { name: rate, kind: spike-arrest, rate: 5ps }\n');
    const set = await loadPolicySetOffline(config, [{ client_id: 'portal', client_secret_hash: 'x', status: 'active', policies: ['rate'] }]);
    expect(set.forApp('portal').map((policy) => policy.name)).toEqual(['rate']);
    expect(set.forEndpoint('/oauth2/v1/token').map((policy) => policy.name)).toEqual(['guard']);
  });

  it("names an app's policy that no file defines, at its place in accounts.yaml", async () => {
    const config = await configWithPolicies('', 'policies:\n  - { name: guard, kind: regex-protection }\n');
    const error = (await loadPolicySetOffline(config, [{ client_id: 'portal', client_secret_hash: 'x', status: 'active', policies: ['missing'] }]).catch((caught: unknown) => caught)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.issues.map(formatIssue)).toEqual([expect.stringContaining('apps[0].policies[0]: unknown policy "missing" (defined: guard)')]);
  });
});
