import { describe, expect, it } from 'vitest';
import { POLICY_KIND_NAMES, policySettings } from '../../src/docs/policy-settings.js';
import { jsonSchemaOf } from '../../src/docs/schema-table.js';
import { POLICY_KINDS } from '../../src/policies/kinds.js';

describe('docs/policy-settings: the settings table of each docs/policies/<kind>.md', () => {
  it('knows every policy kind by the name written as kind:', () => {
    expect(POLICY_KIND_NAMES).toEqual(POLICY_KINDS.map((kind) => kind.kind));
    expect(POLICY_KIND_NAMES).toEqual(expect.arrayContaining(['spike-arrest', 'json-threat', 'regex-protection', 'ip-range', 'time-of-day']));
  });

  it.each(POLICY_KIND_NAMES.map((name) => [name]))('prints a row for every setting of %s, the shared name and kind first', (name) => {
    const table = policySettings(name);
    const keys = table.split('\n').slice(2).map((line) => /^\| `([^`]+)`/.exec(line)?.[1]);
    expect(keys.slice(0, 2)).toEqual(['name', 'kind']);
    const settings = Object.keys(jsonSchemaOf(POLICY_KINDS.find((kind) => kind.kind === name)!.schema).properties ?? {});
    expect(settings.length).toBeGreaterThan(3);
    for (const key of settings) expect(keys, key).toContain(key);
  });

  it('marks the settings a policy must have as required', () => {
    const rows = policySettings('spike-arrest').split('\n');
    expect(rows.find((line) => line.startsWith('| `name` |'))).toMatch(/\| required \|/);
    expect(rows.find((line) => line.startsWith('| `rate` |'))).toMatch(/\| required \|/);
  });

  it('refuses a kind it does not know', () => {
    expect(() => policySettings('quota')).toThrow('no policy kind quota');
  });
});
