import { describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../../src/config/schema.js';
import type { Endpoint } from '../../src/oauth/endpoints/endpoint.js';
import type { PolicySet } from '../../src/policies/policy-set.js';
import { servedEndpoint } from '../../src/pipeline/served.js';
import type { GatewayContext } from '../../src/context.js';
import { fakeExchange } from '../helpers/exchange.js';

const LIMITS = { body_size: 1_048_576, oauth_body_size: 16_384 } as GatewayConfig['limits'];
const ENDPOINT_CHAIN = [{ name: 'endpoint-policy' }];
const set = { forEndpoint: (path: string) => (path === '/ep' ? ENDPOINT_CHAIN : []) } as unknown as PolicySet;

describe('an endpoint as the pipeline serves it', () => {
  const served: string[] = [];
  const endpoint: Endpoint = { path: '/ep', methods: ['GET'], oauthErrors: true, serve: async () => void served.push('served') };

  it('keeps its path, methods and OAuth error flavour, and takes the OAuth body limit', () => {
    const s = servedEndpoint(endpoint, { policies: true });
    expect([s.name, s.methods, s.oauthErrors, s.bodyLimit(LIMITS)]).toEqual(['/ep', ['GET'], true, 16_384]);
  });

  it('runs the defaults and its own policies, or none (the probes)', () => {
    expect(servedEndpoint(endpoint, { policies: true }).policies(set)).toBe(ENDPOINT_CHAIN);
    expect(servedEndpoint(endpoint, { policies: false }).policies(set)).toEqual([]);
  });

  it('authenticates nobody when the endpoint is public, and serves through the endpoint', async () => {
    const s = servedEndpoint(endpoint, { policies: true });
    expect(await s.authenticate({} as GatewayContext, fakeExchange())).toBeUndefined();
    const exchange = fakeExchange();
    await s.serve({} as GatewayContext, exchange, undefined);
    expect(served).toEqual(['served']);
    // An endpoint's answer carries the exchange's id; a route's gets it with the relayed head instead.
    expect((exchange.res as unknown as { headers: Record<string, unknown> }).headers['x-request-id']).toBe('test-request');
  });

  it("uses the endpoint's own authentication when it has one", async () => {
    const authenticated: Endpoint<string> = { ...endpoint, authenticate: async () => 'client-app', serve: async () => undefined };
    expect(await servedEndpoint(authenticated, { policies: true }).authenticate({} as GatewayContext, fakeExchange())).toBe('client-app');
  });
});
