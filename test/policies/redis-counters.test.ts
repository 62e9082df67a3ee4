import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER } from '../helpers/accounts.js';
import { ManualClock } from '../helpers/clock.js';
import { bootGateway, errorOf, issueTokens, passwordGrant, untilDegraded, type TestGateway } from '../helpers/gateway.js';
import { RedisServer } from '../helpers/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { uniqueEnvironment } from '../helpers/redis-store.js';

process.env.TOKEN_GATEWAY_KEY_ENCRYPTION_KEY ??= randomBytes(32).toString('base64');

/**
 * Counters live in Redis, so instances on one Redis count together; while
 * Redis is away each instance counts on its own (rate-limiter-flexible's
 * insurance limiter) rather than failing requests.
 */
describe('spike arrest and brute force on Redis', () => {
  const clock = new ManualClock(Date.parse('2026-11-23T15:00:00.000Z'));
  let redis: RedisServer;
  let a: TestGateway;
  let b: TestGateway;
  let token: string;
  const call = (gw: TestGateway, caller: string) =>
    fetch(`${gw.url}/business/score/v2/x`, { headers: { authorization: `Bearer ${token}`, 'x-caller': caller } });

  beforeAll(async () => {
    redis = await RedisServer.start();
    const environment = uniqueEnvironment();
    const boot = () =>
      bootGateway({
        clock,
        policies: { spike: { policies: [{ name: 'per-caller', kind: 'spike-arrest', rate: '1ps', identifier: 'header', header: 'x-caller' }] } },
        config: (upstream) => ({
          // One deployment behind one name: both instances issue and accept the same `iss`.
          issuer: 'http://gateway.test',
          environment,
          store: { redis: { url: redis.url, command_timeout: '300ms' } },
          brute_force: { max_failures_per_username: 3, cool_down: '1m' },
          routes: [{ path: '/business/score/v2/', upstream, timeout: '2s', policies: ['per-caller'] }],
        }),
      });
    [a, b] = await Promise.all([boot(), boot()]);
    await Promise.all([a, b].map((gw) => eventually(async () => (await fetch(`${gw.url}/readyz`)).status === 200, { timeoutMs: 10_000 })));
    token = (await issueTokens(a.url)).access_token;
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await redis?.dispose();
  });

  it('shares one allowance between instances', async () => {
    clock.advance(1_000 - (clock.now() % 1_000));
    expect((await call(a, 'shared')).status).toBe(200);
    expect(await errorOf(await call(b, 'shared'))).toMatchObject({ status: 401, errorCode: 'SPIKE_ARREST' });
    clock.advance(1_000);
    expect((await call(b, 'shared')).status).toBe(200);
  });

  it('counts failed passwords across instances', async () => {
    for (const gw of [a, b, a]) expect((await passwordGrant(gw.url, { password: 'wrong' })).status).toBe(401);
    expect(await errorOf(await passwordGrant(b.url, { password: USER.password }))).toMatchObject({ status: 401, errorCode: 'LOGIN_LOCKED' });
  });

  it('keeps arresting spikes on each instance alone while Redis is down', async () => {
    await redis.kill();
    await untilDegraded(a.url);
    clock.advance(1_000);
    expect((await call(a, 'offline')).status).toBe(200);
    expect(await errorOf(await call(a, 'offline'))).toMatchObject({ status: 401, errorCode: 'SPIKE_ARREST' });
  });
});
