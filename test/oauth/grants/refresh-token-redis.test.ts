import { setTimeout as sleep } from 'node:timers/promises';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GatewayProcess } from '../../helpers/gateway-process.js';
import { callProtected, errorOf, issueTokens, refreshGrant, type TokenResponse } from '../../helpers/gateway.js';
import { eventually } from '../../helpers/eventually.js';
import { rawCommand, RedisServer } from '../../helpers/redis-server.js';
import { uniqueEnvironment } from '../../helpers/redis-store.js';
import { startUpstream, type TestUpstream } from '../../helpers/upstream.js';

/**
 * The refresh grant's grace window across instances and faults: two real
 * gateway processes on one real redis-server, the window shortened to 3 s so
 * that "after the window" is seconds away on the real clock. Every decision is
 * the Lua script's, so it holds whichever instance a retry lands on.
 */

const GRACE_MS = 3_000;
const RETRIED = 'refresh retried within the grace window: the same successor answered';

let redis: RedisServer;
let upstream: TestUpstream;
let a: GatewayProcess;
let b: GatewayProcess;

beforeAll(async () => {
  [redis, upstream] = await Promise.all([RedisServer.start(), startUpstream()]);
  const environment = uniqueEnvironment();
  const start = () =>
    GatewayProcess.start({
      environment,
      issuer: 'https://api.example.com',
      // A command that takes longer is given up: the client gets a 503 with Retry-After, whether or not Redis ran it.
      store: { redis: { url: redis.url, command_timeout: '300ms' } },
      tokens: { refresh_grace: `${GRACE_MS / 1000}s` },
      routes: [{ path: '/business/score/v2/', upstream: upstream.url, timeout: '2s' }],
    });
  [a, b] = await Promise.all([start(), start()]);
  await Promise.all([a.ready(), b.ready()]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await Promise.all([upstream?.close(), redis?.dispose()]);
});
afterEach(() => {
  for (const gateway of [a, b]) expect(gateway.failures()).toEqual([]);
});

const pairOf = async (response: Response): Promise<TokenResponse> => {
  if (response.status !== 200) throw new Error(`refresh grant answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as TokenResponse;
};
const sidOf = (pair: TokenResponse): unknown => decodeJwt(pair.access_token).sid;

/** Every access token refused and every refresh token dead, on both instances: the grant is over everywhere. */
async function expectGrantRevoked(...pairs: TokenResponse[]): Promise<void> {
  for (const gateway of [a, b]) {
    for (const pair of pairs) {
      await eventually(async () => (await callProtected(gateway.url, pair.access_token)).status === 401, { what: `${gateway.url} to refuse the grant's access token` });
      expect(await errorOf(await refreshGrant(gateway.url, pair.refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
    }
  }
}

describe('the refresh grace window on two instances of one Redis', () => {
  it('answers a retry 1 s after a lost answer, on the other instance, with the same pair', async () => {
    const first = await issueTokens(a.url);
    const lost = await pairOf(await refreshGrant(a.url, first.refresh_token)); // the answer that never reached the client
    await sleep(1_000);
    const retried = await pairOf(await refreshGrant(b.url, first.refresh_token));
    expect(retried.refresh_token).toBe(lost.refresh_token);
    expect(sidOf(retried)).toBe(sidOf(lost));
    for (const gateway of [a, b]) expect((await callProtected(gateway.url, retried.access_token)).status).toBe(200);
    await eventually(() => b.lines.some((line) => line.msg === RETRIED && line.grantId === sidOf(first)));
    // The one successor carries the grant on.
    expect((await refreshGrant(a.url, retried.refresh_token)).status).toBe(200);
  });

  it('revokes the grant for a retry after the window: the earlier pair is refused everywhere', async () => {
    const first = await issueTokens(a.url);
    const successor = await pairOf(await refreshGrant(a.url, first.refresh_token));
    await sleep(GRACE_MS + 200);
    expect(await errorOf(await refreshGrant(b.url, first.refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
    await expectGrantRevoked(successor);
    await eventually(() => b.lines.some((line) => line.msg === 'refresh token reuse: revoking the grant' && line.reason === 'after_window' && line.grantId === sidOf(first)));
  });

  it('revokes the grant when the old token comes back within the window after its successor was used', async () => {
    const first = await issueTokens(a.url);
    const second = await pairOf(await refreshGrant(a.url, first.refresh_token));
    const third = await pairOf(await refreshGrant(b.url, second.refresh_token));
    expect(await errorOf(await refreshGrant(a.url, first.refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
    await expectGrantRevoked(second, third);
    await eventually(() => a.lines.some((line) => line.msg === 'refresh token reuse: revoking the grant' && line.reason === 'successor_used' && line.grantId === sidOf(first)));
  });

  it('ends a refresh whose Redis command timed out, and ran anyway, with a working pair: the retry is answered', async () => {
    const first = await issueTokens(a.url);
    // Redis holds every write for 500 ms (scripts included; reads go on): the refresh finds its token, then its
    // rotation waits past the 300 ms command timeout, and Redis runs it once the pause ends. No debug command needed.
    expect(await rawCommand(redis.port, 'CLIENT PAUSE 500 WRITE')).toBe('+OK\r\n');
    const timedOut = await refreshGrant(a.url, first.refresh_token);
    expect(timedOut.headers.get('retry-after')).toBe('1');
    expect(await errorOf(timedOut)).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' });
    expect(a.lines.some((line) => line.msg === RETRIED)).toBe(false);

    // The client does as told: Retry-After: 1, and the retry lands wherever the balancer sends it.
    await sleep(1_000);
    const retried = await pairOf(await refreshGrant(b.url, first.refresh_token));
    // A retry, not a rotation: Redis had run the timed-out one.
    await eventually(() => b.lines.some((line) => line.msg === RETRIED && line.grantId === sidOf(first)), { what: 'the retry logged on b' });
    for (const gateway of [a, b]) expect((await callProtected(gateway.url, retried.access_token)).status).toBe(200);
    const next = await pairOf(await refreshGrant(a.url, retried.refresh_token));
    expect((await callProtected(b.url, next.access_token)).status).toBe(200);
  });
});
