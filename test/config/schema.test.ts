import { describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../../src/config/load.js';
import { configFile, issuesOf } from '../helpers/config-file.js';
import { gatewayConfigSchema } from '../../src/config/schema.js';

/** gateway.yaml's schema: its defaults, and one row per rule a value can break, named as operators read it. */
describe('gateway.yaml schema', () => {
  it('fills every default from an empty file', async () => {
    const config = await loadGatewayConfig(await configFile(''));
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(config.store).toEqual({ kind: 'memory' });
    expect(config.environment).toBeUndefined();
    expect(config.tokens).toEqual({ access_ttl: 1_800_000, refresh_ttl: 86_400_000, clock_leeway: 5_000, refresh_grace: 30_000, trusted_issuers: [] });
    expect(config.keys).toEqual({ algorithm: 'ES256', rotation_interval: 86_400_000, encryption_key_file: undefined });
    expect(config.limits).toMatchObject({ body_size: 1_048_576, oauth_body_size: 16_384, json_depth: 32 });
    expect(config.routes).toEqual([]);
    expect(config.issuer).toBeUndefined();
  });

  it('accepts refresh_grace: 0s, strictly single-use refresh tokens', async () => {
    expect((await loadGatewayConfig(await configFile('tokens:\n  refresh_grace: 0s\n'))).tokens.refresh_grace).toBe(0);
  });

  it('parses routes with their timeouts and strips a trailing slash from URLs', async () => {
    const config = await loadGatewayConfig(
      await configFile('issuer: https://api.example.com/\nroutes:\n  - path: /a/\n    upstream: http://127.0.0.1:9/\n    timeout: 2s\n'),
    );
    expect(config.issuer).toBe('https://api.example.com');
    expect(config.routes).toEqual([{ path: '/a/', upstream: 'http://127.0.0.1:9', timeout: 2_000, policies: [] }]);
  });

  it.each([
    ['a bad duration', 'tokens:\n  access_ttl: 30 minutes\n', 'gateway.yaml:2: tokens.access_ttl: expected a duration'],
    ['a leeway over a minute', 'tokens:\n  clock_leeway: 2m\n', 'gateway.yaml:2: tokens.clock_leeway: must be between'],
    ['a route timeout longer than a timer can wait', 'routes:\n  - path: /a/\n    upstream: http://127.0.0.1:9\n    timeout: 30d\n', 'gateway.yaml:4: routes[0].timeout: must be between 1ms and 24d (the longest a timer can wait), got "30d"'],
    ['a brute-force cool-down longer than a timer can wait', 'brute_force:\n  cool_down: 90d\n', 'gateway.yaml:2: brute_force.cool_down: must be between 1s and 24d (the longest a timer can wait), got "90d"'],
    ['a refresh grace window over a minute', 'tokens:\n  refresh_grace: 61s\n', 'gateway.yaml:2: tokens.refresh_grace: must be between 0ms and 1m'],
    ['a port out of range', 'listen:\n  port: 70000\n', 'gateway.yaml:2: listen.port:'],
    ['a rotation interval past what a key\'s dates can hold', 'keys:\n  rotation_interval: 100000000d\n', 'gateway.yaml:2: keys.rotation_interval: must be between 100ms and 3650d (the longest span the gateway dates from), got "100000000d"'],
    ['a refresh lifetime past what a grant\'s expiry can hold', 'tokens:\n  refresh_ttl: 100000000d\n', 'gateway.yaml:2: tokens.refresh_ttl: must be between 1s and 3650d (the longest span the gateway dates from), got "100000000d"'],
    ['an access lifetime past what an expiry can hold', 'tokens:\n  access_ttl: 3651d\n', 'gateway.yaml:2: tokens.access_ttl: must be between 1s and 3650d'],
    ['an unknown algorithm', 'keys:\n  algorithm: HS256\n', 'gateway.yaml:2: keys.algorithm:'],
    ['a non-http upstream', 'routes:\n  - path: /a\n    upstream: ftp://x\n', 'gateway.yaml:3: routes[0].upstream: expected an http:// or https:// URL'],
    ['a path without a slash', 'routes:\n  - path: a\n    upstream: http://x\n', 'gateway.yaml:2: routes[0].path: expected a path prefix'],
    ['a duplicate route', 'routes:\n  - { path: /a, upstream: "http://x" }\n  - { path: /a, upstream: "http://y" }\n', 'gateway.yaml:3: routes[1].path: "/a" is already routed'],
    ['the same route with a trailing slash', 'routes:\n  - { path: /a, upstream: "http://x" }\n  - { path: /a/, upstream: "http://y" }\n', 'gateway.yaml:3: routes[1].path: "/a/" is already routed by an earlier entry ("/a": the same prefix with or without its trailing slash)'],
    ['a route under the token service', 'routes:\n  - { path: /oauth2/v1/x, upstream: "http://x" }\n', 'routes[0].path: "/oauth2/v1/x" overlaps the gateway'],
    ['a route above the token service', 'routes:\n  - { path: /oauth2, upstream: "http://x" }\n', 'routes[0].path: "/oauth2" overlaps the gateway'],
    ['a catch-all route', 'routes:\n  - { path: /, upstream: "http://x" }\n', 'routes[0].path: "/" overlaps the gateway'],
    ['a route over discovery', 'routes:\n  - { path: /.well-known/, upstream: "http://x" }\n', 'routes[0].path: "/.well-known/" overlaps'],
    ['refresh shorter than access', 'tokens:\n  access_ttl: 1h\n  refresh_ttl: 30m\n', 'gateway.yaml:3: tokens.refresh_ttl: must not be shorter'],
    ['headers timeout over request timeout', 'limits:\n  headers_timeout: 1m\n  request_timeout: 10s\n', 'gateway.yaml:2: limits.headers_timeout:'],
    ['a trusted issuer that is not a URL', 'tokens:\n  trusted_issuers: [uk-region]\n', 'gateway.yaml:2: tokens.trusted_issuers[0]: expected an http:// or https:// URL'],
    ['a duration too large for any number of milliseconds', 'tokens:\n  access_ttl: 9999999999999999999999d\n', 'gateway.yaml:2: tokens.access_ttl: too large to be a duration (more than 285,616 years), got "9999999999999999999999d"'],
  ])('names the file, line and key for %s', async (_case, text, expected) => {
    const issues = await issuesOf(text);
    expect(issues.join('\n')).toContain(expected);
  });

  // The folder shorthand and the object form are one schema: a wrong value inside the object is named at its key.
  it.each([
    ['defaults as a string', 'policies:\n  defaults: injection-guard\n', 'gateway.yaml:2: policies.defaults: expected a list, got a string'],
    ['defaults holding a number', 'policies:\n  defaults: [1]\n', 'gateway.yaml:2: policies.defaults[0]: expected a string, got a number'],
    ['a folder that is a number', 'policies:\n  folder: 5\n', 'gateway.yaml:2: policies.folder: expected a string, got a number'],
    ['an endpoint given a string', 'policies:\n  endpoints:\n    /oauth2/v1/token: token-endpoint-spike-arrest\n', 'gateway.yaml:3: policies.endpoints./oauth2/v1/token: expected a list, got a string'],
    ['an endpoint left empty', 'policies:\n  endpoints:\n    /oauth2/v1/token:\n', 'gateway.yaml:3: policies.endpoints./oauth2/v1/token: expected a list, got nothing (null)'],
    ['neither a folder nor a mapping', 'policies: 5\n', 'gateway.yaml:1: policies: expected the policies folder, or a mapping with folder, defaults and endpoints'],
  ])('names the key inside policies for %s', async (_case, text, expected) => {
    expect(await issuesOf(text)).toEqual([expected]);
  });

  it('takes the policies folder shorthand as the folder', async () => {
    const config = await loadGatewayConfig(await configFile('policies: ./mine\n'));
    expect(config.policies).toMatchObject({ defaults: [], endpoints: {} });
    expect(config.policies.folder).toMatch(/\/mine$/);
  });

  it.each([
    ['workers: 0, not also "more than one worker"', 'workers: 0\n', ['gateway.yaml:1: workers: must be at least 1, got 0']],
    ['a bad route path, not also an overlap', 'routes:\n  - { path: "oauth2", upstream: "http://x" }\n', ['gateway.yaml:2: routes[0].path: expected a path prefix starting with "/" (no query, fragment or spaces)']],
  ])('skips the checks across keys that depend on a key that failed: %s', async (_case, text, expected) => {
    expect(await issuesOf(text)).toEqual(expected);
  });
});

/** gateway.yaml's `oauth` section (docs/standard-oauth-clients.md). */
describe('gateway.yaml oauth', () => {
  it('keeps the spec wire format only by default: form_encoded is false', () => {
    expect(gatewayConfigSchema.parse({}).oauth).toEqual({ form_encoded: false });
  });

  it('accepts form_encoded: true', () => {
    expect(gatewayConfigSchema.parse({ oauth: { form_encoded: true } }).oauth).toEqual({ form_encoded: true });
  });

  it.each([[{ form_encoded: 'yes' }], [{ form_encoded: 1 }], [{ forms: true }]])('refuses %j', (oauth) => {
    expect(gatewayConfigSchema.safeParse({ oauth }).success).toBe(false);
  });

  it('describes every key, for the configuration reference', () => {
    const section = gatewayConfigSchema.shape.oauth;
    expect(section.description).toBeTruthy();
    const inner = section.unwrap() as unknown as { shape: Record<string, { description?: string }> };
    for (const key of Object.keys(inner.shape)) expect(inner.shape[key]?.description, key).toBeTruthy();
  });
});
