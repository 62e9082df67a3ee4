import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, formatIssue } from '../../src/config/errors.js';
import { readPolicyFolder } from '../../src/policies/policy-file.js';

const GUARD = 'policies:\n  - name: guard\n    kind: regex-protection\n';
const RANGE = 'policies:\n  - name: office\n    kind: ip-range\n    rules: [{ allow: 10.0.0.0/8 }]\n    default: deny\n';

describe('the policies folder', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-policy-files-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const issues = async () => {
    const error = await readPolicyFolder(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((issue) => formatIssue(issue).replace(`${dir}/`, ''));
  };

  it('reads every *.yaml and *.yml file in name order, each policy validated by its kind', async () => {
    await writeFile(join(dir, 'b.yml'), RANGE);
    await writeFile(join(dir, 'a.yaml'), GUARD);
    const definitions = await readPolicyFolder(dir);
    expect(definitions.map((d) => [d.name, d.kind.kind, d.file.replace(`${dir}/`, ''), d.index])).toEqual([
      ['guard', 'regex-protection', 'a.yaml', 0],
      ['office', 'ip-range', 'b.yml', 0],
    ]);
  });

  it('skips hidden files (editor swap files, ..data) and files of other types, and follows symlinks', async () => {
    await writeFile(join(dir, '.a.yaml.swp'), 'garbage: [');
    await writeFile(join(dir, 'notes.txt'), 'not a policy');
    await mkdir(join(dir, '..2026'));
    await writeFile(join(dir, '..2026', 'guard.yaml'), GUARD);
    await symlink(join('..2026', 'guard.yaml'), join(dir, 'guard.yaml'));
    expect((await readPolicyFolder(dir)).map((d) => d.name)).toEqual(['guard']);
  });

  it('holds no policies when the folder does not exist', async () => {
    expect(await readPolicyFolder(join(dir, 'none'))).toEqual([]);
  });

  it('reports every problem of every file together, at its line', async () => {
    await writeFile(join(dir, 'a.yaml'), 'policies:\n  - name: x\n    kind: teleport\n');
    await writeFile(join(dir, 'b.yaml'), 'policies:\n  - kind: regex-protection\n');
    await writeFile(join(dir, 'c.yaml'), 'policies:\n  - name: y\n');
    expect(await issues()).toEqual([
      'a.yaml:3: policies[0].kind: unknown kind "teleport"; expected one of regex-protection, json-threat, spike-arrest, ip-range, time-of-day',
      expect.stringMatching(/^b\.yaml:2: policies\[0\]\.name: /),
      'c.yaml:2: policies[0]: expected a policy with a kind (regex-protection, json-threat, spike-arrest, ip-range, time-of-day)',
    ]);
  });

  it('says a file that is one policy without the policies: list holds a list', async () => {
    await writeFile(join(dir, 'a.yaml'), 'name: burst\nkind: spike-arrest\nrate: 5ps\n');
    expect(await issues()).toEqual(['a.yaml:1: a policy file holds a list under "policies:" (policies:, then "- name: ..." for each policy)']);
  });

  it('refuses a name defined twice, pointing at both files', async () => {
    await writeFile(join(dir, 'a.yaml'), GUARD);
    await writeFile(join(dir, 'b.yaml'), `${RANGE}  - name: guard\n    kind: regex-protection\n`);
    expect(await issues()).toEqual([`b.yaml:6: policies[1].name: "guard" is already defined in ${join(dir, 'a.yaml')}`]);
  });
});
