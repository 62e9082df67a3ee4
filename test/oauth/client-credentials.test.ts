import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, OTHER_APP, SUSPENDED_APP } from '../helpers/accounts.js';
import { bootGateway, errorOf, expectOAuthError, passwordGrant, type TestGateway } from '../helpers/gateway.js';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** The client's credentials on the token endpoint, read here once for every grant (password grant requests as the carrier). */
describe('client credentials (SPEC 4.3, RFC 6749 2.3.1)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway();
  });
  afterAll(() => tg.close());

  describe('in any of the three places', () => {
    const userOnly = { client_id: undefined, client_secret: undefined };
    it.each([
      ['the JSON body', {}, {}],
      ['client_id/client_secret headers', userOnly, { client_id: APP.client_id, client_secret: APP.client_secret }],
      ['HTTP Basic (client_secret_basic)', userOnly, { authorization: basic(APP.client_id, APP.client_secret) }],
      ['body and matching headers', {}, { client_id: APP.client_id, client_secret: APP.client_secret }],
    ])('%s', async (_place, body, headers) => {
      const response = await passwordGrant(tg.url, body, headers as Record<string, string>);
      expect(response.status).toBe(200);
    });

    it.each([
      ['body and headers disagree', {}, { client_id: OTHER_APP.client_id }],
      ['body and Basic disagree', {}, { authorization: basic(APP.client_id, 'other-secret') }],
    ])('refuses %s with 400', async (_case, body, headers) => {
      const { status, errorCode, body: envelope } = await errorOf(await passwordGrant(tg.url, body, headers as Record<string, string>));
      expect({ status, errorCode }).toEqual({ status: 400, errorCode: 'CLIENT_CREDENTIALS_CONFLICT' });
      expect(envelope.error).toBe('invalid_request');
    });

    it('sends a Basic challenge when Basic credentials are wrong (RFC 6749 5.2)', async () => {
      const response = await passwordGrant(tg.url, { client_id: undefined, client_secret: undefined }, { authorization: basic(APP.client_id, 'nope') });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    });
  });

  // SPEC section 7 rows of the client credentials, in the envelope, with RFC 6749 fields.
  const ROWS: Array<[string, Record<string, unknown>, Record<string, string>, number, string, string, string]> = [
    ['client_id missing', { client_id: undefined }, {}, 400, 'CLIENT_CREDENTIALS_REQUIRED', 'invalid_request', "The 'client_id' and 'client_secret' attributes are required"],
    ['client_secret missing', { client_secret: undefined }, {}, 400, 'CLIENT_CREDENTIALS_REQUIRED', 'invalid_request', "The 'client_id' and 'client_secret' attributes are required"],
    ['client_secret blank', { client_secret: '' }, {}, 400, 'CLIENT_CREDENTIALS_REQUIRED', 'invalid_request', "The 'client_id' and 'client_secret' attributes are required"],
    ['client and user both missing', { client_id: undefined, username: undefined }, {}, 400, 'CLIENT_CREDENTIALS_REQUIRED', 'invalid_request', "The 'client_id' and 'client_secret' attributes are required"],
    ['wrong client secret', { client_secret: 'wrong' }, {}, 401, 'INVALID_CLIENT_CREDENTIALS', 'invalid_client', 'Access is denied due to invalid client id or client secret'],
    ['unknown client', { client_id: 'nobody' }, {}, 401, 'INVALID_CLIENT_CREDENTIALS', 'invalid_client', 'Access is denied due to invalid client id or client secret'],
    ['bad client before bad user', { client_secret: 'wrong', password: 'wrong' }, {}, 401, 'INVALID_CLIENT_CREDENTIALS', 'invalid_client', 'Access is denied due to invalid client id or client secret'],
    ['locked app', { ...SUSPENDED_APP }, {}, 401, 'CLIENT_ACCOUNT_INVALID_STATE', 'invalid_client', 'Your account is in invalid state. For further assistance, please contact API support'],
  ];

  it.each(ROWS)('%s -> %i %s', async (_case, body, headers, status, errorCode, oauthError, message) => {
    await expectOAuthError(await passwordGrant(tg.url, body, headers), { status, errorCode, oauthError, message });
  });

});
