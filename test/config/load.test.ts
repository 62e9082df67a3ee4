import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, formatIssue } from '../../src/config/errors.js';
import { loadGatewayConfig } from '../../src/config/load.js';

async function configFile(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tg-config-'));
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, text);
  return file;
}

async function issuesOf(text: string): Promise<string[]> {
  const file = await configFile(text);
  const error = await loadGatewayConfig(file).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues.map((issue) => formatIssue(issue).replace(file, 'gateway.yaml'));
}

describe('gateway.yaml', () => {
  it('fills every default from an empty file', async () => {
    const config = await loadGatewayConfig(await configFile(''));
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(config.store).toEqual({ kind: 'memory' });
    expect(config.environment).toBeUndefined();
    expect(config.tokens).toEqual({ access_ttl: 1_800_000, refresh_ttl: 86_400_000, clock_leeway: 5_000, trusted_issuers: [] });
    expect(config.keys).toEqual({ algorithm: 'ES256', rotation_interval: 86_400_000, encryption_key_file: undefined });
    expect(config.limits).toMatchObject({ body_size: 1_048_576, oauth_body_size: 16_384, json_depth: 32 });
    expect(config.routes).toEqual([]);
    expect(config.issuer).toBeUndefined();
  });

  it('resolves accounts relative to the config file and freezes the result', async () => {
    const file = await configFile('accounts: ./people.yaml\n');
    const config = await loadGatewayConfig(file);
    expect(config.accounts).toBe(join(file, '..', 'people.yaml'));
    expect(Object.isFrozen(config.tokens)).toBe(true);
  });

  it('lets --port override listen.port', async () => {
    const config = await loadGatewayConfig(await configFile('listen: { port: 9000 }\n'), { port: 9100 });
    expect(config.listen.port).toBe(9100);
  });

  it('parses routes with their timeouts and strips a trailing slash from URLs', async () => {
    const config = await loadGatewayConfig(
      await configFile('issuer: https://api.example.com/\nroutes:\n  - path: /a/\n    upstream: http://127.0.0.1:9/\n    timeout: 2s\n'),
    );
    expect(config.issuer).toBe('https://api.example.com');
    expect(config.routes).toEqual([{ path: '/a/', upstream: 'http://127.0.0.1:9', timeout: 2_000, policies: [] }]);
  });

  it.each([
    ['an unknown top-level key', 'listen:\n  port: 1\nlistne: {}\n', 'gateway.yaml:3: listne: unknown key'],
    ['an unknown nested key', 'tokens:\n  access_ttl: 30m\n  acess_ttl: 1m\n', 'gateway.yaml:3: tokens.acess_ttl: unknown key'],
    ['a bad duration', 'tokens:\n  access_ttl: 30 minutes\n', 'gateway.yaml:2: tokens.access_ttl: expected a duration'],
    ['a leeway over a minute', 'tokens:\n  clock_leeway: 2m\n', 'gateway.yaml:2: tokens.clock_leeway: must be between'],
    ['a port out of range', 'listen:\n  port: 70000\n', 'gateway.yaml:2: listen.port:'],
    ['an unknown algorithm', 'keys:\n  algorithm: HS256\n', 'gateway.yaml:2: keys.algorithm:'],
    ['a non-http upstream', 'routes:\n  - path: /a\n    upstream: ftp://x\n', 'gateway.yaml:3: routes[0].upstream: expected an http:// or https:// URL'],
    ['a path without a slash', 'routes:\n  - path: a\n    upstream: http://x\n', 'gateway.yaml:2: routes[0].path: expected a path prefix'],
    ['a duplicate route', 'routes:\n  - { path: /a, upstream: "http://x" }\n  - { path: /a, upstream: "http://y" }\n', 'gateway.yaml:3: routes[1].path: "/a" is already routed'],
    ['a route under the token service', 'routes:\n  - { path: /oauth2/v1/x, upstream: "http://x" }\n', 'routes[0].path: "/oauth2/v1/x" overlaps the gateway'],
    ['a route above the token service', 'routes:\n  - { path: /oauth2, upstream: "http://x" }\n', 'routes[0].path: "/oauth2" overlaps the gateway'],
    ['a catch-all route', 'routes:\n  - { path: /, upstream: "http://x" }\n', 'routes[0].path: "/" overlaps the gateway'],
    ['a route over discovery', 'routes:\n  - { path: /.well-known/, upstream: "http://x" }\n', 'routes[0].path: "/.well-known/" overlaps'],
    ['refresh shorter than access', 'tokens:\n  access_ttl: 1h\n  refresh_ttl: 30m\n', 'gateway.yaml:3: tokens.refresh_ttl: must not be shorter'],
    ['headers timeout over request timeout', 'limits:\n  headers_timeout: 1m\n  request_timeout: 10s\n', 'gateway.yaml:2: limits.headers_timeout:'],
    ['an unknown store', 'store: memroy\n', 'gateway.yaml:1: store: expected "memory", a redis:// or rediss:// URL'],
    ['a redis store without an environment', 'store: redis://127.0.0.1:6379\n', 'gateway.yaml:1: environment: is required with a Redis store (redis 127.0.0.1:6379/0)'],
    ['an environment that is not a plain name', 'environment: Prod Env\n', 'gateway.yaml:1: environment: expected a short lower-case name'],
    ['a bad cluster node', 'environment: uat\nstore:\n  redis:\n    cluster: [redis://a:7000, http://b:7001]\n', 'gateway.yaml:4: store.redis.cluster[1]: expected a redis:// or rediss:// URL'],
    ['two topologies at once', 'environment: uat\nstore:\n  redis:\n    url: redis://a:6379\n    cluster: [redis://a:7000]\n', 'gateway.yaml:3: store.redis: give exactly one of url, cluster or sentinels'],
    ['sentinels without a master name', 'environment: uat\nstore:\n  redis:\n    sentinels: [redis://s:26379]\n', 'gateway.yaml:3: store.redis.name: is required with sentinels'],
    ['a bad redis timeout', 'environment: uat\nstore:\n  redis:\n    url: redis://a:6379\n    command_timeout: soon\n', 'gateway.yaml:5: store.redis.command_timeout: expected a duration'],
    ['an unknown redis key', 'environment: uat\nstore:\n  redis:\n    url: redis://a:6379\n    colour: red\n', 'gateway.yaml:5: store.redis.colour: unknown key'],
    ['a password variable that is not a name', 'environment: uat\nstore:\n  redis:\n    url: redis://a:6379\n    password_env: $PW\n', 'gateway.yaml:5: store.redis.password_env: expected the name of an environment variable'],
    ['a trusted issuer that is not a URL', 'tokens:\n  trusted_issuers: [uk-region]\n', 'gateway.yaml:2: tokens.trusted_issuers[0]: expected an http:// or https:// URL'],
    ['invalid YAML', 'listen: [\n', 'gateway.yaml:'],
    ['a duplicate key', 'listen: {}\nlisten: {}\n', 'gateway.yaml:2:'],
  ])('names the file, line and key for %s', async (_case, text, expected) => {
    const issues = await issuesOf(text);
    expect(issues.join('\n')).toContain(expected);
  });

  it('reports a missing file by name', async () => {
    const error = (await loadGatewayConfig('/nonexistent/gateway.yaml').catch((caught: unknown) => caught)) as ConfigError;
    expect(formatIssue(error.issues[0]!)).toBe('/nonexistent/gateway.yaml: cannot read file (ENOENT)');
  });
});
