import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CommandLineError } from '../../src/cli/command-errors.js';
import { chainFor, RefusedBeforePolicies, type ServedChain } from '../../src/cli/dry-run-chain.js';
import { loadGatewayConfig } from '../../src/config/load.js';
import type { GatewayConfig } from '../../src/config/schema.js';
import { loadPolicySetOffline } from '../../src/policies/offline.js';
import type { PolicySet } from '../../src/policies/policy-set.js';

let dir: string;
let config: GatewayConfig;
let set: PolicySet;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tg-dry-run-chain-'));
  await mkdir(join(dir, 'policies'));
  const names = ['first', 'token', 'outer', 'inner', 'app'];
  await writeFile(join(dir, 'policies', 'all.yaml'), stringify({ policies: names.map((name) => ({ name, kind: 'regex-protection' })) }));
  await writeFile(
    join(dir, 'gateway.yaml'),
    stringify({
      policies: { defaults: ['first'], endpoints: { '/oauth2/v1/token': ['token'] } },
      limits: { body_size: '2mb', oauth_body_size: '8kb' },
      routes: [
        { path: '/api/', upstream: 'http://127.0.0.1:9', policies: ['outer'] },
        { path: '/api/inner/', upstream: 'http://127.0.0.1:9', policies: ['inner'] },
      ],
    }),
  );
  config = await loadGatewayConfig(join(dir, 'gateway.yaml'));
  set = await loadPolicySetOffline(config, [{ client_id: 'portal', client_secret_hash: 'x', status: 'active', policies: ['app'] } as never]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const summary = (chain: ServedChain) => ({
  served: chain.served,
  path: chain.path,
  bodyLimit: chain.bodyLimit,
  before: chain.before.map((policy) => policy.name),
  app: chain.app.map((policy) => policy.name),
});

describe('the chain the gateway would run for a dry-run request', () => {
  it('finds an endpoint by its exact path, with the OAuth body limit', () => {
    expect(summary(chainFor(config, set, '/oauth2/v1/token', {}, undefined))).toEqual({ served: 'endpoint /oauth2/v1/token', path: '/oauth2/v1/token', bodyLimit: 8 * 1024, before: ['first', 'token'], app: [] });
  });

  it('finds the longest route on the path decoded once, with the route body limit, and adds the app after', () => {
    expect(summary(chainFor(config, set, '/api/inner/%41', {}, 'portal'))).toEqual({ served: 'route /api/inner/', path: '/api/inner/A', bodyLimit: 2 * 1024 * 1024, before: ['first', 'inner'], app: ['app'] });
    expect(summary(chainFor(config, set, '/api/other', {}, 'nobody'))).toMatchObject({ served: 'route /api/', before: ['first', 'outer'], app: [] });
  });

  it('runs no policy on a probe', () => {
    expect(summary(chainFor(config, set, '/readyz', {}, 'portal'))).toMatchObject({ served: 'probe /readyz', before: [], app: [] });
  });

  it('takes a route or endpoint named outright, whatever the path', () => {
    expect(chainFor(config, set, '/elsewhere', { route: '/api/' }, undefined).served).toBe('route /api/');
    expect(chainFor(config, set, '/elsewhere', { endpoint: '/oauth2/v1/revokeToken' }, undefined).served).toBe('endpoint /oauth2/v1/revokeToken');
  });

  it.each([
    ['a path nothing serves', '/nothing', {}, /no route or endpoint of .*gateway\.yaml serves \/nothing \(the gateway would answer 404 before any policy\)/],
    ['an unknown route', '/x', { route: '/nope/' }, /--route must be a route of .*gateway\.yaml \(\/api\/, \/api\/inner\/\), got "\/nope\/"/],
    ['an endpoint that takes no policies', '/x', { endpoint: '/readyz' }, /--endpoint must be one of \/oauth2\/v1\/token, /],
  ])('is a command-line error for %s', (_case, path, choice, message) => {
    expect(() => chainFor(config, set, path, choice, undefined)).toThrow(CommandLineError);
    expect(() => chainFor(config, set, path, choice, undefined)).toThrow(message);
  });

  it.each(['/api/../admin', '/api//x', '/api/%2e%2e/x', '/api/INNER/x'])('says the gateway refuses %s before any policy', (path) => {
    expect(() => chainFor(config, set, path, {}, undefined)).toThrow(RefusedBeforePolicies);
  });
});
