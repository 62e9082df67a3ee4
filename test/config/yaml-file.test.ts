import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, formatIssue } from '../../src/config/errors.js';
import { lineOfKey, loadYamlFile, parseYamlText, readFailure } from '../../src/config/yaml-file.js';
import { configFile, issuesOf } from '../helpers/config-file.js';

const schema = z.strictObject({ name: z.string(), items: z.array(z.strictObject({ size: z.number() })).default([]) });
const issues = (text: string) => {
  try {
    parseYamlText(text, 'file.yaml', schema);
  } catch (error) {
    return (error as ConfigError).issues.map(formatIssue);
  }
  throw new Error('accepted');
};

describe('YAML files checked against a schema', () => {
  it('returns the parsed data when it fits', () => {
    expect(parseYamlText('name: a\nitems:\n  - size: 1\n', 'file.yaml', schema)).toEqual({ name: 'a', items: [{ size: 1 }] });
  });

  it('reads an empty file as an empty mapping', () => {
    expect(() => parseYamlText('', 'file.yaml', z.strictObject({}))).not.toThrow();
  });

  it.each([
    ['a wrong type, at its key', 'name: a\nitems:\n  - size: big\n', 'file.yaml:3: items[0].size: '],
    ['each unknown key on its own line', 'name: a\ncolour: red\nshape: round\n', 'file.yaml:2: colour: unknown key\nfile.yaml:3: shape: unknown key'],
    ['a missing key, at its parent (the whole file: line 1)', 'items: []\n', 'file.yaml:1: name: '],
    ['invalid YAML, at its line', 'name: a\nitems: [\n', 'file.yaml:3: '],
    ['a key given twice, by name and where it came first', 'name: a\nname: b\n', 'file.yaml:2: name: duplicate key "name" (first on line 1)'],
    ['a key given twice deep in a list', 'name: a\nitems:\n  - size: 1\n    size: 2\n', 'file.yaml:4: items[0].size: duplicate key "size" (first on line 3)'],
  ])('names %s', (_case, text, expected) => {
    expect(issues(text).join('\n')).toContain(expected);
  });

  it('says a file cannot be read, by name and code', async () => {
    const error = await loadYamlFile('/nonexistent/file.yaml', schema).catch((caught: unknown) => caught);
    expect((error as ConfigError).issues.map(formatIssue)).toEqual(['/nonexistent/file.yaml: cannot read file (ENOENT)']);
  });

  it('says a file cannot be read at the key that named it, when the caller says which', async () => {
    const gateway = await configFile('listen: {}\naccounts: ./nope.yaml\n');
    const error = await loadYamlFile('/nonexistent/nope.yaml', schema, { file: gateway, key: ['accounts'] }).catch((caught: unknown) => caught);
    expect((error as ConfigError).issues.map(formatIssue)).toEqual([`${gateway}:2: accounts: cannot read /nonexistent/nope.yaml (ENOENT)`]);
    const folder = await readFailure('/etc/passwd', Object.assign(new Error('not a folder'), { code: 'ENOTDIR' }), { file: gateway, key: ['policies', 'folder'] });
    expect(formatIssue(folder)).toBe(`${gateway}:1: policies.folder: cannot read /etc/passwd (ENOTDIR)`);
  });

  it('finds the line of a key in a file that loaded, or of its nearest parent, for problems found later', async () => {
    const file = await configFile('name: a\nitems:\n  - size: 1\n  - size: 2\n', 'file.yaml');
    expect(await lineOfKey(file, ['items', 1, 'size'])).toBe(4);
    expect(await lineOfKey(file, ['items', 1, 'missing'])).toBe(4);
    expect(await lineOfKey(file, ['name'])).toBe(1);
    expect(await lineOfKey('/nonexistent/file.yaml', ['name'])).toBeUndefined();
  });
});

describe('gateway.yaml problems as operators read them', () => {
  it.each([
    ['an unknown top-level key', 'listen:\n  port: 1\nlistne: {}\n', 'gateway.yaml:3: listne: unknown key'],
    ['an unknown nested key', 'tokens:\n  access_ttl: 30m\n  acess_ttl: 1m\n', 'gateway.yaml:3: tokens.acess_ttl: unknown key'],
    ['invalid YAML', 'listen: [\n', 'gateway.yaml:'],
    ['a duplicate key', 'listen: {}\nlisten: {}\n', 'gateway.yaml:2:'],
  ])('names the file, line and key for %s', async (_case, text, expected) => {
    const found = await issuesOf(text);
    expect(found.join('\n')).toContain(expected);
  });
});
