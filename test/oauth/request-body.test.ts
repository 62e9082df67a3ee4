import { describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../src/context.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { readOAuthForm, readOAuthJsonBody, unambiguousMembers } from '../../src/oauth/request-body.js';
import { fakeExchange } from '../helpers/exchange.js';

const ctx = { config: { limits: { json_depth: 3 } } } as unknown as GatewayContext;

/** The error code a read is refused with, or its result. */
const outcome = (promise: Promise<unknown>): Promise<unknown> => promise.catch((error: unknown) => (isGatewayError(error) ? error.code : error));

describe('oauth/request-body: the body of a request to the token service, read once', () => {
  it.each<[string, string, unknown]>([
    ['an object', '{"username":"alice","n":1}', { username: 'alice', n: 1 }],
    ['an empty body', '', undefined],
    ['a body of white space', ' \n ', undefined],
    ['an array', '[1]', 'MALFORMED_JSON_BODY'],
    ['a string', '"x"', 'MALFORMED_JSON_BODY'],
    ['null', 'null', 'MALFORMED_JSON_BODY'],
    ['invalid JSON', '{"a":', 'MALFORMED_JSON_BODY'],
    // limits.json_depth (3 here) is checked before JSON.parse.
    ['an object nested as deep as limits.json_depth', '{"a":{"b":{}}}', { a: { b: {} } }],
    ['an object nested deeper than limits.json_depth', '{"a":{"b":{"c":{}}}}', 'JSON_THREAT'],
  ])('reads a JSON body of %s as %j', async (_what, body, expected) => {
    expect(await outcome(readOAuthJsonBody(ctx, fakeExchange({ body })))).toEqual(expected);
  });

  it('parses a JSON body once, however many phases ask for it', async () => {
    const exchange = fakeExchange({ body: '{"client_id":"app-one"}' });
    const first = readOAuthJsonBody(ctx, exchange);
    expect(readOAuthJsonBody(ctx, exchange)).toBe(first);
    expect(await readOAuthJsonBody(ctx, exchange)).toBe(await first);
  });

  it('reads a form with every value of every name kept, decoded once', async () => {
    const form = await readOAuthForm(fakeExchange({ body: 'token=a%2Bb&token=c+d&token_type_hint=access_token' }));
    expect([...form]).toEqual([['token', 'a+b'], ['token', 'c d'], ['token_type_hint', 'access_token']]);
  });

  it('parses a form once, however many phases ask for it', async () => {
    const exchange = fakeExchange({ body: 'client_id=app-one' });
    const first = readOAuthForm(exchange);
    expect(readOAuthForm(exchange)).toBe(first);
    expect((await first).get('client_id')).toBe('app-one');
  });

  it('reads a form within the exchange body\'s size limit (limits.oauth_body_size): 413 past it', async () => {
    expect(await outcome(readOAuthForm(fakeExchange({ body: `token=${'x'.repeat(16_384)}` })))).toBe('PAYLOAD_TOO_LARGE');
    expect(await outcome(readOAuthJsonBody(ctx, fakeExchange({ body: `{"a":"${'x'.repeat(16_384)}"}` })))).toBe('PAYLOAD_TOO_LARGE');
  });

  it.each<[string, Array<[string, string]>]>([
    // Who a request claims to be is asked before a repeat is refused: a name sent twice names nobody.
    ['client_id=app-one&username=alice', [['client_id', 'app-one'], ['username', 'alice']]],
    ['client_id=app-one&client_id=app-two&username=alice', [['username', 'alice']]],
    ['client_id=app-one&client_id=app-one', []],
    ['client_id=', [['client_id', '']]],
    ['', []],
  ])('unambiguousMembers(%j) is %j, and never throws', (text, members) => {
    const result = unambiguousMembers(new URLSearchParams(text));
    expect(Object.getPrototypeOf(result)).toBeNull();
    expect(Object.entries(result)).toEqual(members);
  });
});
