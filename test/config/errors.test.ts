import { describe, expect, it } from 'vitest';
import { ConfigError, formatIssue, keyPath, StartupError } from '../../src/config/errors.js';

describe('configuration errors', () => {
  it.each([
    [{ file: 'gateway.yaml', line: 3, key: 'tokens.access_ttl', message: 'expected a duration' }, 'gateway.yaml:3: tokens.access_ttl: expected a duration'],
    [{ file: 'gateway.yaml', key: 'environment', message: 'is required' }, 'gateway.yaml: environment: is required'],
    [{ file: 'gateway.yaml', line: 1, key: '', message: 'invalid YAML' }, 'gateway.yaml:1: invalid YAML'],
    [{ file: 'accounts.yaml', key: '', message: 'cannot read file (ENOENT)' }, 'accounts.yaml: cannot read file (ENOENT)'],
  ])('formats %j as %s', (issue, text) => {
    expect(formatIssue(issue)).toBe(text);
  });

  it.each([
    [[], ''],
    [['tokens', 'access_ttl'], 'tokens.access_ttl'],
    [['routes', 0, 'path'], 'routes[0].path'],
    [['store', 'redis', 'cluster', 1], 'store.redis.cluster[1]'],
    [[0, 'x'], '[0].x'],
  ] as const)('writes the key path %j as %s', (path, text) => {
    expect(keyPath(path)).toBe(text);
  });

  it('a ConfigError lists every issue, one per line', () => {
    const error = new ConfigError([
      { file: 'a.yaml', line: 1, key: 'x', message: 'bad' },
      { file: 'b.yaml', key: '', message: 'worse' },
    ]);
    expect(error.message).toBe('invalid configuration:\n  a.yaml:1: x: bad\n  b.yaml: worse');
    expect(error.issues).toHaveLength(2);
    expect(error.name).toBe('ConfigError');
  });

  it('a StartupError is its message', () => {
    const error = new StartupError('set TOKEN_GATEWAY_KEY_ENCRYPTION_KEY');
    expect([error.name, error.message]).toEqual(['StartupError', 'set TOKEN_GATEWAY_KEY_ENCRYPTION_KEY']);
  });
});
