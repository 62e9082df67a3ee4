import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, formatIssue } from '../../src/config/errors.js';
import { readPolicyFolder, type PolicyDefinition } from '../../src/policies/policy-file.js';
import { PolicySet, type PolicyAttachments, type PolicyReference } from '../../src/policies/policy-set.js';
import { MemoryWindowCounter } from '../../src/store/memory.js';
import { ManualClock } from '../helpers/clock.js';

const deps = { clock: new ManualClock(), windowCounter: ({ points }: { points: number }) => new MemoryWindowCounter(points) };
const FILE = '/etc/token-gateway/gateway.yaml';
const ref = (path: PropertyKey[], names: string[]): PolicyReference => ({ file: FILE, path, names });
const attachments = (over: Partial<PolicyAttachments> = {}): PolicyAttachments => ({
  defaults: ref(['policies', 'defaults'], ['guard']),
  endpoints: new Map([['/oauth2/v1/token', ref(['policies', 'endpoints', '/oauth2/v1/token'], ['rate'])]]),
  routes: new Map([
    ['/api/', ref(['routes', 0, 'policies'], ['office', 'guard'])],
    ['/open/', ref(['routes', 1, 'policies'], [])],
  ]),
  apps: new Map([['portal', ref(['apps', 0, 'policies'], ['office'])]]),
  ...over,
});
const names = (chain: ReadonlyArray<{ name: string }>) => chain.map((policy) => policy.name);

describe('the policy set: every chain resolved once, at load', () => {
  let definitions: PolicyDefinition[];
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tg-policy-set-'));
    await writeFile(
      join(dir, 'all.yaml'),
      [
        'policies:',
        '  - { name: guard, kind: regex-protection }',
        '  - { name: rate, kind: spike-arrest, rate: 10ps }',
        '  - { name: office, kind: ip-range, rules: [{ allow: 10.0.0.0/8 }], default: deny }',
        '',
      ].join('\n'),
    );
    definitions = await readPolicyFolder(dir);
  });

  it('compiles every policy, frozen, under its name and kind', async () => {
    const set = await PolicySet.build(definitions, attachments(), deps);
    expect([...set.policies.values()].map((policy) => [policy.name, policy.kind])).toEqual([
      ['guard', 'regex-protection'],
      ['rate', 'spike-arrest'],
      ['office', 'ip-range'],
    ]);
    expect(Object.isFrozen(set.policies.get('guard'))).toBe(true);
  });

  it("runs the defaults first, then an endpoint's or route's own; an app's own alone", async () => {
    const set = await PolicySet.build(definitions, attachments(), deps);
    expect(names(set.forEndpoint('/oauth2/v1/token'))).toEqual(['guard', 'rate']);
    expect(names(set.forRoute('/open/'))).toEqual(['guard']);
    expect(names(set.forApp('portal'))).toEqual(['office']);
  });

  it('runs a policy named twice once, where it first appears', async () => {
    const set = await PolicySet.build(definitions, attachments(), deps);
    expect(names(set.forRoute('/api/'))).toEqual(['guard', 'office']);
  });

  it('has no chain for a path or app nothing attaches to', async () => {
    const set = await PolicySet.build(definitions, attachments(), deps);
    expect([set.forEndpoint('/oauth2/v1/keys'), set.forRoute('/other/'), set.forApp('nobody')]).toEqual([[], [], []]);
    expect(PolicySet.empty.forRoute('/api/')).toEqual([]);
  });

  it('reports every unknown name where it was written, with the names that are defined', async () => {
    const error = await PolicySet.build(
      definitions,
      attachments({ defaults: ref(['policies', 'defaults'], ['gaurd']), apps: new Map([['portal', ref(['apps', 0, 'policies'], ['guard', 'nope'])]]) }),
      deps,
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map(formatIssue)).toEqual([
      `${FILE}: policies.defaults[0]: unknown policy "gaurd" (defined: guard, rate, office)`,
      `${FILE}: apps[0].policies[1]: unknown policy "nope" (defined: guard, rate, office)`,
    ]);
  });

  it('says so when no policies are defined at all', async () => {
    const error = (await PolicySet.build([], attachments(), deps).catch((caught: unknown) => caught)) as ConfigError;
    expect(error.issues[0]!.message).toBe('unknown policy "guard" (no policies are defined)');
  });
});
