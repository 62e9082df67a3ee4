import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimedCaller } from '../../src/pipeline/endpoint-caller.js';
import { APP, USER } from '../helpers/accounts.js';
import { fakeExchange } from '../helpers/exchange.js';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** Who an endpoint's policies count by, before anyone is authenticated: the caller the request claims to be, if we know the name. */
describe('the caller an endpoint request claims to be', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());
  const caller = (options: Parameters<typeof fakeExchange>[0]) => claimedCaller(tg.gateway.context, fakeExchange(options));
  const json = { 'content-type': 'application/json' };

  it.each([
    ['the client_id header', { headers: { client_id: APP.client_id } }],
    ['HTTP Basic', { headers: { authorization: basic(APP.client_id, 'any') } }],
    ['the JSON body', { headers: json, body: JSON.stringify({ client_id: APP.client_id }) }],
  ])('takes a known client_id from %s, without checking its secret', async (_case, options) => {
    expect(await caller(options).clientId()).toBe(APP.client_id);
  });

  it('counts a client_id nobody knows as no client (then the address counts), so made-up ids get no fresh allowance', async () => {
    expect(await caller({ headers: { client_id: 'made-up-123' } }).clientId()).toBeUndefined();
  });

  it("takes a known user from a password grant's JSON body, and no unknown one", async () => {
    expect(await caller({ headers: json, body: JSON.stringify({ username: USER.username }) }).user()).toBe(USER.username);
    expect(await caller({ headers: json, body: JSON.stringify({ username: 'nobody-here' }) }).user()).toBeUndefined();
    expect(await caller({ headers: json, body: JSON.stringify({ username: 42 }) }).user()).toBeUndefined();
  });

  it('reads no body that is not JSON', async () => {
    const exchange = fakeExchange({ headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ username: USER.username }) });
    expect(await claimedCaller(tg.gateway.context, exchange).user()).toBeUndefined();
    expect(exchange.body.isBuffered).toBe(false);
  });
});
