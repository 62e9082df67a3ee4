import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPolicies } from '../../src/pipeline/policy-phase.js';
import { fakeExchange } from '../helpers/exchange.js';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';

describe("the policies' view of a request", () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  const identity = { clientId: async () => 'portal', user: async () => 'alice' };

  it('takes the policy set in force when the request opened it (a reload does not change it midway)', () => {
    const opened = openPolicies(tg.gateway.context, fakeExchange(), '/x', identity);
    expect(opened.set).toBe(tg.gateway.context.policies.current);
  });

  it('shows the matched path, the request, its body, its client address and who is calling', async () => {
    const exchange = fakeExchange({ url: '/a%2Fb?x=1', clientAddress: '203.0.113.9' });
    const { request } = openPolicies(tg.gateway.context, exchange, '/a/b', identity);
    expect(request.path).toBe('/a/b');
    expect(request.req).toBe(exchange.req);
    expect(request.body).toBe(exchange.body);
    expect(request.clientAddress).toBe('203.0.113.9');
    expect([await request.clientId(), await request.user()]).toEqual(['portal', 'alice']);
  });

  it.each([
    ['/x?q=1&q=2&r=%20s', [['q', '1'], ['q', '2'], ['r', ' s']]],
    ['/x', []],
    ['/x?', []],
  ])('parses the query of %s (once, on first use)', (url, entries) => {
    const { request } = openPolicies(tg.gateway.context, fakeExchange({ url }), '/x', identity);
    expect([...request.query]).toEqual(entries);
    expect(request.query).toBe(request.query);
  });
});
