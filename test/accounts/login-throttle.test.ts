import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER } from '../helpers/accounts.js';
import { bootGateway, errorOf, passwordGrant, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';

const LOCKED = { status: 401, errorCode: 'LOGIN_LOCKED', message: 'Access to the requested resource is not allowed' };

/**
 * Failed passwords per username and per client address (X-Forwarded-For is
 * believed here because the test client, 127.0.0.1, is a trusted proxy).
 */
describe('brute-force protection on the password grant', () => {
  let gw: TestGateway;
  let addresses = 0;
  const freshAddress = () => `198.51.100.${++addresses}`;
  const attempt = (password: string, address: string, username = USER.username) =>
    passwordGrant(gw.url, { username, password }, { 'x-forwarded-for': address });
  const outcome = async (response: Response) => {
    const { status, errorCode, body } = await errorOf(response);
    return { status, errorCode, message: body.errors[0]?.message };
  };

  beforeAll(async () => {
    gw = await bootGateway({
      config: {
        trusted_proxies: ['127.0.0.1'],
        brute_force: { max_failures_per_username: 3, max_failures_per_address: 5, window: '1m', cool_down: '1s' },
      },
    });
  });
  afterAll(() => gw.close());

  it('locks a username after its threshold, refusing even the right password, and unlocks after the cool-down', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await outcome(await attempt('wrong', freshAddress()))).toMatchObject({ status: 401, errorCode: 'INVALID_USER_CREDENTIALS' });
    }
    // The right and a wrong password get the same answer: a locked account tells nothing about a guess.
    expect(await outcome(await attempt(USER.password, freshAddress()))).toEqual(LOCKED);
    expect(await outcome(await attempt('wrong', freshAddress()))).toEqual(LOCKED);
    // Bounded wait on the store's own expiry (rate-limiter-flexible keeps real time): cool_down is 1 s.
    await eventually(async () => (await attempt(USER.password, freshAddress())).status === 200, { timeoutMs: 5_000 });
  });

  it('lets the attempt at the threshold through, and a success clears the failures', async () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2; i++) expect((await attempt('wrong', freshAddress())).status).toBe(401);
      expect((await attempt(USER.password, freshAddress())).status).toBe(200);
    }
  });

  it('locks an address that sprays many usernames, and only that address', async () => {
    const sprayer = freshAddress();
    for (let i = 0; i < 5; i++) {
      expect(await outcome(await attempt('guess', sprayer, `user-${i}`))).toMatchObject({ errorCode: 'INVALID_USER_CREDENTIALS' });
    }
    expect(await outcome(await attempt(USER.password, sprayer))).toEqual(LOCKED);
    expect((await attempt(USER.password, freshAddress())).status).toBe(200);
  });

  it('keeps usernames out of the logs and out of the lock detail', async () => {
    expect(gw.rawLogs.join('\n')).not.toContain('user-3');
  });
});

describe('brute-force protection against parallel guesses', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await bootGateway({ config: { brute_force: { max_failures_per_username: 3, max_failures_per_address: 0, cool_down: '1m' } } });
  });
  afterAll(() => gw.close());

  it('verifies no more guesses than the threshold, however many arrive at once', async () => {
    const guesses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => passwordGrant(gw.url, { password: i === 19 ? USER.password : `wrong-${i}` })),
    );
    const codes = await Promise.all(guesses.map(async (response) => (await errorOf(response)).errorCode ?? 'OK'));
    expect(codes.filter((code) => code === 'INVALID_USER_CREDENTIALS').length).toBeLessThanOrEqual(3);
    expect(codes.filter((code) => code === 'LOGIN_LOCKED').length).toBeGreaterThanOrEqual(16);
  });
});
