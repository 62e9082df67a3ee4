import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { TokenClient, TokenGatewayError, TokenRequestError, type TokenClientOptions } from '@token-gateway/client';
import { APP, USER } from '../helpers/accounts.js';
import { ManualClock } from '../helpers/clock.js';
import { CountingFetch } from '../helpers/counting-fetch.js';
import { bootGateway, callProtected, revoke, type BootOptions, type TestGateway } from '../helpers/gateway.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('TokenClient.getAccessToken', () => {
  let tg: TestGateway | undefined;
  let clock: ManualClock;
  let wire: CountingFetch;

  async function boot(options: BootOptions = {}): Promise<TestGateway> {
    clock = new ManualClock(Date.now());
    wire = await CountingFetch.create();
    tg = await bootGateway({ clock, ...options });
    return tg;
  }

  /** A client sharing the gateway's frozen clock, its requests counted. */
  function clientOf(gateway: TestGateway, options: Partial<TokenClientOptions> = {}): TokenClient {
    return new TokenClient({
      baseUrl: gateway.url,
      clientId: APP.client_id,
      clientSecret: APP.client_secret,
      username: USER.username,
      password: USER.password,
      fetch: wire.fetch,
      now: () => clock.now(),
      ...options,
    });
  }

  afterEach(async () => {
    await tg?.close();
    tg = undefined;
  });

  it('gets a token with the password grant on the first call (SPEC 4.3)', async () => {
    const gateway = await boot();
    const token = await clientOf(gateway).getAccessToken();
    expect(wire.sent).toEqual(['password']);
    expect(token).toBe(wire.lastIssued.access_token);
    expect((await callProtected(gateway.url, token)).status).toBe(200);
  });

  it('reuses the token while it is fresh: no second token request', async () => {
    const client = clientOf(await boot());
    const first = await client.getAccessToken();
    clock.advance(28 * MINUTE - 1);
    expect(await client.getAccessToken()).toBe(first);
    expect(await client.getAccessToken()).toBe(first);
    expect(wire.tokenRequests).toBe(1);
  });

  it('renews with the refresh grant at the 28-minute mark (SPEC 5.5)', async () => {
    const gateway = await boot();
    const client = clientOf(gateway);
    const first = await client.getAccessToken();
    clock.advance(28 * MINUTE);
    const second = await client.getAccessToken();
    expect(second).not.toBe(first);
    expect(wire.sent).toEqual(['password', 'refresh_token']);
    expect((await callProtected(gateway.url, second)).status).toBe(200);
    expect(await client.getAccessToken()).toBe(second);
    expect(wire.tokenRequests).toBe(2);
  });

  it('keeps renewing with the rotated refresh token, one refresh per 28 minutes', async () => {
    const client = clientOf(await boot());
    await client.getAccessToken();
    for (let i = 0; i < 3; i++) {
      clock.advance(28 * MINUTE);
      await client.getAccessToken();
    }
    expect(wire.sent).toEqual(['password', 'refresh_token', 'refresh_token', 'refresh_token']);
  });

  it('falls back to the password grant when the refresh token was revoked', async () => {
    const gateway = await boot();
    const client = clientOf(gateway);
    await client.getAccessToken();
    expect((await revoke(gateway.url, wire.lastIssued.refresh_token)).status).toBe(200);
    clock.advance(28 * MINUTE);
    const token = await client.getAccessToken();
    expect(wire.sent).toEqual(['password', 'refresh_token', 'password']);
    expect((await callProtected(gateway.url, token)).status).toBe(200);
  });

  it('falls back to the password grant when the refresh token is past its 24 hours', async () => {
    const gateway = await boot();
    const client = clientOf(gateway);
    await client.getAccessToken();
    clock.advance(24 * HOUR);
    const token = await client.getAccessToken();
    expect(wire.sent).toEqual(['password', 'refresh_token', 'password']);
    expect((await callProtected(gateway.url, token)).status).toBe(200);
  });

  it('lets 100 concurrent first calls share one token request', async () => {
    const client = clientOf(await boot());
    const tokens = await Promise.all(Array.from({ length: 100 }, () => client.getAccessToken()));
    expect(wire.sent).toEqual(['password']);
    expect(new Set(tokens).size).toBe(1);
  });

  it('lets 100 concurrent calls at the renewal mark share one refresh grant', async () => {
    const gateway = await boot();
    const client = clientOf(gateway);
    const first = await client.getAccessToken();
    clock.advance(28 * MINUTE);
    const tokens = await Promise.all(Array.from({ length: 100 }, () => client.getAccessToken()));
    expect(wire.sent).toEqual(['password', 'refresh_token']);
    expect(new Set(tokens)).toEqual(new Set([wire.lastIssued.access_token]));
    expect(tokens[0]).not.toBe(first);
    // A second refresh with the same token would have revoked the grant: the new token works.
    expect((await callProtected(gateway.url, tokens[0])).status).toBe(200);
  });

  it('renews a shorter-lived token at the same proportion (28 of 30 minutes)', async () => {
    const client = clientOf(await boot({ config: { tokens: { access_ttl: '5m' } } }));
    const first = await client.getAccessToken();
    clock.advance(280_000 - 1); // 5 min x 28/30
    expect(await client.getAccessToken()).toBe(first);
    clock.advance(1);
    expect(await client.getAccessToken()).not.toBe(first);
    expect(wire.sent).toEqual(['password', 'refresh_token']);
  });

  it('renews when renewAfterMs says so', async () => {
    const client = clientOf(await boot(), { renewAfterMs: 10 * MINUTE });
    await client.getAccessToken();
    clock.advance(10 * MINUTE - 1);
    await client.getAccessToken();
    expect(wire.tokenRequests).toBe(1);
    clock.advance(1);
    await client.getAccessToken();
    expect(wire.sent).toEqual(['password', 'refresh_token']);
  });

  it('invalidate() forgets the access token: the next call uses the refresh grant', async () => {
    const client = clientOf(await boot());
    const first = await client.getAccessToken();
    client.invalidate();
    expect(await client.getAccessToken()).not.toBe(first);
    expect(wire.sent).toEqual(['password', 'refresh_token']);
  });

  it('revoke() ends the grant at the gateway; the next call starts over with the password grant', async () => {
    const gateway = await boot();
    const client = clientOf(gateway);
    const first = await client.getAccessToken();
    await client.revoke();
    expect((await callProtected(gateway.url, first)).status).toBe(401);
    const second = await client.getAccessToken();
    expect(wire.sent).toEqual(['password', 'revoke', 'password']);
    expect((await callProtected(gateway.url, second)).status).toBe(200);
  });

  it('revoke() with no token held sends nothing', async () => {
    await clientOf(await boot()).revoke();
    expect(wire.sent).toEqual([]);
  });

  describe('errors', () => {
    it.each([
      ['a wrong client secret', { clientSecret: 'not-the-secret' }, 401, 'INVALID_CLIENT_CREDENTIALS', 'Access is denied due to invalid client id or client secret'],
      ['a wrong password', { password: 'not-the-password' }, 401, 'INVALID_USER_CREDENTIALS', 'Access is denied due to invalid username or password'],
    ])('throws a TokenGatewayError for %s, and the next call tries again', async (_, options, status, errorCode, message) => {
      const client = clientOf(await boot(), options);
      const error = await client.getAccessToken().catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(TokenGatewayError);
      expect(error).toMatchObject({ status, errorCode, message, requestId: expect.stringMatching(/\S{8,}/) });
      const shown = `${inspect(error)} ${JSON.stringify(error)}`;
      for (const secret of [Object.values(options)[0], APP.client_secret, USER.password]) expect(shown).not.toContain(secret);
      await expect(client.getAccessToken()).rejects.toBeInstanceOf(TokenGatewayError);
      expect(wire.tokenRequests).toBe(2);
    });

    it("carries the gateway's Retry-After (spike arrest on the token endpoint)", async () => {
      const gateway = await boot({
        policies: { arrest: { policies: [{ name: 'token-arrest', kind: 'spike-arrest', rate: '1pm', identifier: 'client_id' }] } },
        config: { policies: { endpoints: { '/oauth2/v1/token': ['token-arrest'] } } },
      });
      await clientOf(gateway).getAccessToken();
      const error = await clientOf(gateway).getAccessToken().catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ name: 'TokenGatewayError', status: 401, errorCode: 'SPIKE_ARREST', retryAfter: expect.any(Number) });
      expect((error as TokenGatewayError).retryAfter).toBeGreaterThan(0);
    });

    it('throws a TokenRequestError when the network fails, and the next call tries again', async () => {
      const client = clientOf(await boot());
      wire.networkDown = true;
      const error = await client.getAccessToken().catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(TokenRequestError);
      expect((error as TokenRequestError).status).toBeUndefined();
      wire.networkDown = false;
      expect(await client.getAccessToken()).toBe(wire.lastIssued.access_token);
      expect(wire.sent).toEqual(['password', 'password']);
    });

    it('retries a refresh whose answer was lost once, safely: the gateway answers the same pair within its grace window', async () => {
      const gateway = await boot();
      const client = clientOf(gateway);
      await client.getAccessToken();
      clock.advance(28 * MINUTE);
      wire.loseRefreshAnswers = 1;
      const renewed = await client.getAccessToken();
      expect(wire.sent).toEqual(['password', 'refresh_token', 'refresh_token']);
      expect((await callProtected(gateway.url, renewed)).status).toBe(200);
      // The grant lives on: the next renewal is a refresh again, with the one successor, and nothing was revoked.
      clock.advance(28 * MINUTE);
      expect((await callProtected(gateway.url, await client.getAccessToken())).status).toBe(200);
      expect(wire.sent).toEqual(['password', 'refresh_token', 'refresh_token', 'refresh_token']);
      expect(gateway.logs.some((line) => line.msg === 'refresh token reuse: revoking the grant')).toBe(false);
      expect(gateway.logs.filter((line) => line.msg === 'refresh retried within the grace window: the same successor answered')).toHaveLength(1);
    });

    it("retries a refresh answered by a balancer's 504 after the gateway rotated, waiting for no more than its Retry-After", async () => {
      const gateway = await boot();
      const client = clientOf(gateway);
      await client.getAccessToken();
      clock.advance(28 * MINUTE);
      wire.loseRefreshAnswers = 1;
      wire.lostAs = () => new Response('<html>504 Gateway Time-out</html>', { status: 504, headers: { 'content-type': 'text/html', 'retry-after': '1' } });
      const renewed = await client.getAccessToken();
      expect(wire.sent).toEqual(['password', 'refresh_token', 'refresh_token']);
      expect((await callProtected(gateway.url, renewed)).status).toBe(200);
    });

    it('keeps serving a still-valid token while renewal fails for a passing reason, and retries every 5 s', async () => {
      const gateway = await boot();
      const client = clientOf(gateway);
      const first = await client.getAccessToken();
      clock.advance(28 * MINUTE);
      wire.networkDown = true;
      expect(await client.getAccessToken()).toBe(first);
      expect(await client.getAccessToken()).toBe(first);
      // Each attempt is a refresh and its one retry (no answer: it may have rotated the token).
      expect(wire.sent).toEqual(['password', 'refresh_token', 'refresh_token']);
      clock.advance(5_000);
      expect(await client.getAccessToken()).toBe(first);
      expect(wire.sent).toEqual(['password', ...Array(4).fill('refresh_token')]);
      // Within 10 s of expiry the token is no longer handed out: the failure is thrown.
      clock.advance(2 * MINUTE - 10_000 - 5_000);
      await expect(client.getAccessToken()).rejects.toBeInstanceOf(TokenRequestError);
      wire.networkDown = false;
      const renewed = await client.getAccessToken();
      expect(wire.sent.at(-1)).toBe('refresh_token');
      expect((await callProtected(gateway.url, renewed)).status).toBe(200);
    });
  });

  describe('options', () => {
    const valid = { baseUrl: 'http://127.0.0.1:1', ...{ clientId: APP.client_id, clientSecret: APP.client_secret }, ...USER };

    it.each([
      ['baseUrl not http(s)', { baseUrl: 'ftp://example.com' }, /baseUrl/],
      ['baseUrl with credentials', { baseUrl: 'https://user:pw@example.com' }, /baseUrl must not hold credentials/],
      ['empty clientId', { clientId: '' }, /clientId/],
      ['clientSecret with a line break', { clientSecret: 'abc\r\nx-evil: 1' }, /clientSecret must be printable ASCII/],
      ['clientSecret with a trailing space', { clientSecret: 'secret ' }, /clientSecret/],
      ['missing password', { password: undefined }, /password/],
      ['renewAfterMs of 0', { renewAfterMs: 0 }, /renewAfterMs/],
      ['timeoutMs not a number', { timeoutMs: Number.NaN }, /timeoutMs/],
    ])('refuses %s with a TypeError that quotes no value', (_, override, message) => {
      const options = { ...valid, ...override } as TokenClientOptions;
      expect(() => new TokenClient(options)).toThrow(message);
      try {
        new TokenClient(options);
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
        for (const value of Object.values(override)) if (typeof value === 'string' && value !== '') expect(String(error)).not.toContain(value);
      }
    });

    it('takes a timeoutMs beyond what a timer holds (30 days) as "no practical limit", not as an instant timeout', async () => {
      // AbortSignal.timeout turns a delay past 2^31-1 ms into 1 ms: every token request would fail at once.
      const gateway = await boot();
      const token = await clientOf(gateway, { timeoutMs: 30 * 24 * HOUR }).getAccessToken();
      expect((await callProtected(gateway.url, token)).status).toBe(200);
    });

    it('keeps credentials out of inspection and serialisation', () => {
      const client = new TokenClient(valid);
      const shown = `${inspect(client, { depth: 10, showHidden: true })} ${JSON.stringify(client)}`;
      for (const secret of [APP.client_secret, USER.password]) expect(shown).not.toContain(secret);
    });
  });
});
