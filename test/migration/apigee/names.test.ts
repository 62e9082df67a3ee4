import { describe, expect, it } from 'vitest';
import { POLICY_NAME } from '../../../src/config/fields.js';
import { durationText, ourName } from '../../../src/migration/apigee/names.js';

describe('migration/apigee/names: names and durations as our files write them', () => {
  it.each<[string[], string]>([
    // Names our rules accept are kept as written, joined with ".".
    [['orders', 'SA-Token'], 'orders.SA-Token'],
    [['business-score-v2', 'RE_Common.v2'], 'business-score-v2.RE_Common.v2'],
    [['uri-path', '1'], 'uri-path.1'],
    [[], 'p'],
  ])('ourName(%j) is %j', (parts, name) => {
    expect(ourName(...parts)).toBe(name);
    expect(name).toMatch(POLICY_NAME);
  });

  it.each<[string[], string]>([
    // A name that had to change keeps what it could, and a hash of the original tells it from the others.
    [['orders', 'SA Token'], 'orders.SA-Token'],
    [['orders', 'SA  $%  Token'], 'orders.SA-Token'],
    [['orders', 'Prüfung'], 'orders.Pr-fung'],
    [['orders', '_private'], 'orders.private'],
    [['orders', '--trailing--'], 'orders.trailing'],
    [['orders', '$$$'], 'orders'],
    [['orders', ''], 'orders'],
    [['.hidden'], 'hidden'],
    [['$'], 'p'],
  ])('ourName(%j) is %j and a hash', (parts, start) => {
    const name = ourName(...parts);
    expect(name).toMatch(new RegExp(`^${start.replace(/\./g, '\\.')}-[0-9a-f]{8}$`));
    expect(name).toMatch(POLICY_NAME);
  });

  it('keeps two Apigee names apart when only the characters it replaced tell them apart: our names are unique across the folder', () => {
    const names = [['SA Bulk'], ['SA-Bulk'], ['SA$Bulk'], ['SA  Bulk'], ['-SA-Bulk'], ['SA-Bulk-']].map((policy) => ourName('orders', ...policy));
    expect(new Set(names).size).toBe(names.length);
    expect(names[1]).toBe('orders.SA-Bulk');
    expect(ourName('orders', 'SA Bulk')).toBe(names[0]);
  });

  it('keeps a name of 64 characters whole', () => {
    const name = `a${'b'.repeat(63)}`;
    expect(ourName(name)).toBe(name);
  });

  it('cuts a longer name to 64 characters: its start and a hash of the whole, so two long names stay two', () => {
    const long = (ending: string) => ourName('a-bundle-with-a-long-name', `${'policy-'.repeat(10)}${ending}`);
    const [one, two] = [long('one'), long('two')];
    for (const name of [one, two]) {
      expect(name).toHaveLength(64);
      expect(name).toMatch(POLICY_NAME);
      expect(name).toMatch(/^a-bundle-with-a-long-name\.policy-policy-.*-[0-9a-f]{8}$/);
    }
    expect(one).not.toBe(two);
    expect(long('one')).toBe(one);
  });

  it('never leaves a separator before the hash', () => {
    // 55 characters then "-": the cut lands on the dash.
    expect(ourName(`${'x'.repeat(54)}-${'y'.repeat(20)}`)).toMatch(/^x{54}-[0-9a-f]{8}$/);
  });

  it.each<[number, string]>([
    [1_000, '1s'],
    [1_500, '1500ms'],
    [90_000, '90s'],
    [60_000, '1m'],
    [1_800_000, '30m'],
    [3_600_000, '1h'],
    [86_400_000, '24h'],
    [5_400_000, '90m'],
  ])('durationText(%i) is %s: the largest exact unit', (ms, text) => {
    expect(durationText(ms)).toBe(text);
  });
});
