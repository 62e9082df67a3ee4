import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { bootGateway, callProtected, errorOf, issueTokens, passwordGrant, refreshGrant, revoke, untilDegraded } from '../helpers/gateway.js';
import { GatewayProcess, TEST_KEK } from '../helpers/gateway-process.js';
import { rm } from 'node:fs/promises';
import { freePort, makeCertificates, RedisCluster, RedisServer } from '../helpers/redis-server.js';
import { eventually } from '../helpers/eventually.js';
import { uniqueEnvironment } from '../helpers/redis-store.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';

/**
 * Several real gateway processes on one real Redis: what production runs
 * behind a load balancer. Each test uses its own environment prefix.
 */

let upstream: TestUpstream;
const running: GatewayProcess[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(() => upstream.close());
afterEach(async () => {
  const stopped = running.splice(0);
  // Stopped first: a process writes its last log lines (batched) as it exits.
  await Promise.all(stopped.map((gateway) => gateway.stop()));
  for (const gateway of stopped) expect(gateway.failures()).toEqual([]);
});

interface InstanceOptions {
  store: unknown;
  environment: string;
  extra?: Record<string, unknown>;
}

async function instance({ store, environment, extra = {} }: InstanceOptions): Promise<GatewayProcess> {
  const gateway = await GatewayProcess.start({
    environment,
    store,
    // Instances of one region sit behind one host name: one issuer.
    issuer: 'https://api.example.com',
    routes: [{ path: '/business/score/v2/', upstream: upstream.url, timeout: '2s' }],
    ...extra,
  });
  running.push(gateway);
  await gateway.ready();
  return gateway;
}

/** `count` instances with the same options, started together; a tuple so that tests can name them. */
async function instances(count: 2, options: InstanceOptions): Promise<[GatewayProcess, GatewayProcess]>;
async function instances(count: 3, options: InstanceOptions): Promise<[GatewayProcess, GatewayProcess, GatewayProcess]>;
async function instances(count: number, options: InstanceOptions): Promise<GatewayProcess[]> {
  return Promise.all(Array.from({ length: count }, () => instance(options)));
}

const kidsOf = async (url: string): Promise<string[]> =>
  ((await (await fetch(`${url}/oauth2/v1/keys`)).json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid).sort();

describe('three gateways on one redis act as one', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterAll(() => redis.dispose());

  it('accepts a token anywhere, refuses a revoked one everywhere, and serves one JWKS', async () => {
    const environment = uniqueEnvironment();
    const [a, b, c] = await instances(3, { store: redis.url, environment });
    const tokens = await issueTokens(a.url);
    for (const gateway of [a, b, c]) expect((await callProtected(gateway.url, tokens.access_token)).status).toBe(200);
    const jwks = await kidsOf(a.url);
    expect(await kidsOf(b.url)).toEqual(jwks);
    expect(await kidsOf(c.url)).toEqual(jwks);

    expect((await revoke(a.url, tokens.access_token)).status).toBe(200);
    for (const gateway of [b, c]) {
      await eventually(async () => (await callProtected(gateway.url, tokens.access_token)).status === 401);
    }
  });

  it('ends a grant everywhere when its refresh token is revoked on one instance', async () => {
    const environment = uniqueEnvironment();
    const [a, b] = await instances(2, { store: redis.url, environment });
    const tokens = await issueTokens(b.url);
    expect((await revoke(a.url, tokens.refresh_token)).status).toBe(200);
    await eventually(async () => (await callProtected(b.url, tokens.access_token)).status === 401);
    expect(await errorOf(await refreshGrant(b.url, tokens.refresh_token))).toMatchObject({ status: 400, errorCode: 'INVALID_REFRESH_TOKEN' });
  });

  it('answers a refresh raced on two instances with the same pair on both: one rotation, the other its retry', async () => {
    const environment = uniqueEnvironment();
    const [a, b] = await instances(2, { store: redis.url, environment });
    for (let round = 0; round < 5; round++) {
      const { refresh_token } = await issueTokens(a.url);
      const answers = await Promise.all([refreshGrant(a.url, refresh_token), refreshGrant(b.url, refresh_token)]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const [fromA, fromB] = (await Promise.all(answers.map((answer) => answer.json()))) as Array<{ access_token: string; refresh_token: string }>;
      expect(fromA!.refresh_token).toBe(fromB!.refresh_token);
      expect(decodeJwt(fromA!.access_token).sid).toBe(decodeJwt(fromB!.access_token).sid);
      // Both access tokens work everywhere, and the one successor carries the grant on.
      for (const gateway of [a, b]) for (const pair of [fromA!, fromB!]) expect((await callProtected(gateway.url, pair.access_token)).status).toBe(200);
      expect((await refreshGrant(b.url, fromA!.refresh_token)).status).toBe(200);
    }
  });

  it('rotates keys for all instances: each publishes the next key before any signs with it', async () => {
    // In-process gateways on one ManualClock (a child process cannot share a test's clock): the rotation is due when
    // the test advances the clock, not when a real interval happens to elapse between two requests.
    process.env.TOKEN_GATEWAY_KEY_ENCRYPTION_KEY ??= TEST_KEK;
    const clock = new ManualClock();
    const environment = uniqueEnvironment();
    const boot = () =>
      bootGateway({
        clock,
        // The periodic resync is out of the way (an hour): the only timers within the interval are the two schedules'.
        config: { environment, issuer: 'https://api.example.com', store: { redis: { url: redis.url, resync_interval: '1h' } }, keys: { rotation_interval: '30s' } },
      });
    const [a, b] = await Promise.all([boot(), boot()]);
    try {
      await Promise.all([a, b].map((gw) => eventually(async () => (await fetch(`${gw.url}/readyz`)).status === 200, { timeoutMs: 10_000 })));
      // A schedule armed before its ring came from Redis looks again a second later (by the clock); after that look,
      // both schedules wait for the next key's time.
      clock.advance(1_000);
      await eventually(() => !clock.hasTimerWithin(1_000) && clock.timersWithin(29_000) === 2, { what: 'both rotation schedules to wait for the next key' });
      const first = decodeProtectedHeader((await issueTokens(a.url)).access_token).kid!;
      const publishedOnB = await kidsOf(b.url);
      expect(publishedOnB).toEqual(await kidsOf(a.url));

      clock.advance(29_000);
      const rotated = decodeProtectedHeader((await issueTokens(a.url)).access_token).kid!;
      expect(rotated).not.toBe(first);
      // Seen by the other instance before the first token it signed.
      expect(publishedOnB).toContain(rotated);
      const fromB = await issueTokens(b.url);
      expect(decodeProtectedHeader(fromB.access_token).kid).toBe(rotated);
      expect((await callProtected(a.url, fromB.access_token)).status).toBe(200);
      // Whichever instance rotated (the other finds the lock taken), both serve the same ring of three.
      await eventually(async () => (await kidsOf(a.url)).length === 3 && JSON.stringify(await kidsOf(a.url)) === JSON.stringify(await kidsOf(b.url)), {
        what: 'both instances to serve the same rotated ring',
      });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('accepts tokens of another region of the same environment, and never of another environment', async () => {
    const environment = uniqueEnvironment();
    const us = await instance({ store: redis.url, environment, extra: { issuer: 'https://us.api.example.com', tokens: { trusted_issuers: ['https://uk.api.example.com'] } } });
    const uk = await instance({ store: redis.url, environment, extra: { issuer: 'https://uk.api.example.com', tokens: { trusted_issuers: ['https://us.api.example.com'] } } });
    const elsewhere = await instance({ store: redis.url, environment: uniqueEnvironment(), extra: { issuer: 'https://us.api.example.com' } });
    const fromUs = await issueTokens(us.url);
    expect(decodeJwt(fromUs.access_token).iss).toBe('https://us.api.example.com');
    expect((await callProtected(uk.url, fromUs.access_token)).status).toBe(200);
    expect(await errorOf(await callProtected(elsewhere.url, fromUs.access_token))).toMatchObject({ status: 401, errorCode: 'ACCESS_TOKEN_INVALID' });
  });
});

describe('redis faults', () => {
  it('keeps validating from memory while redis is down, answers 503 for writes, and recovers with nothing lost when redis returns empty', async () => {
    const redis = await RedisServer.start();
    try {
      const environment = uniqueEnvironment();
      const [a, b] = await instances(2, { store: { redis: { url: redis.url, command_timeout: '300ms' } }, environment });
      const kept = await issueTokens(a.url);
      const revoked = await issueTokens(a.url);
      expect((await revoke(b.url, revoked.access_token)).status).toBe(200);
      await eventually(async () => (await callProtected(a.url, revoked.access_token)).status === 401);

      // Traffic goes on while redis is killed and comes back empty.
      const statuses: number[] = [];
      let trafficOn = true;
      const traffic = (async () => {
        // Bounded: stops when told, or after 30 s whatever happens to the test.
        const stopAt = Date.now() + 30_000;
        while (trafficOn && Date.now() < stopAt) {
          for (const gateway of [a, b]) {
            statuses.push((await callProtected(gateway.url, kept.access_token)).status);
            const refused = await callProtected(gateway.url, revoked.access_token);
            expect(refused.status).toBe(401);
            statuses.push((await passwordGrant(gateway.url)).status);
          }
        }
      })();

      try {
        await redis.kill();
        await untilDegraded(a.url);
        const during = await passwordGrant(a.url);
        expect(await errorOf(during)).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' });
        expect(during.headers.get('retry-after')).toBe('1');
        expect(await errorOf(await revoke(b.url, kept.refresh_token))).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' });
        expect((await callProtected(b.url, kept.access_token)).status).toBe(200);
        // On a loaded machine the traffic loop can be slow (argon2): let it see the outage before Redis returns.
        await eventually(() => statuses.includes(503));

        await redis.launch();
        await Promise.all([a.ready(), b.ready()]);
      } finally {
        trafficOn = false;
        await traffic;
      }
      expect(new Set(statuses)).toEqual(new Set([200, 503]));

      // A new instance, started after the restart, learns the revocation and the keys from what a and b wrote back.
      const late = await instance({ store: redis.url, environment });
      expect((await callProtected(late.url, revoked.access_token)).status).toBe(401);
      expect((await callProtected(late.url, kept.access_token)).status).toBe(200);
      expect(await kidsOf(late.url)).toEqual(await kidsOf(a.url));
      expect(a.alive && b.alive).toBe(true);
    } finally {
      await redis.dispose();
    }
  });

  it('starts while redis is unreachable, reports not ready, and becomes ready when redis appears', async () => {
    const port = await freePort();
    const environment = uniqueEnvironment();
    const gateway = await GatewayProcess.start({
      environment,
      store: `redis://127.0.0.1:${port}/0`,
      routes: [{ path: '/business/score/v2/', upstream: upstream.url, timeout: '2s' }],
    });
    running.push(gateway);
    const readiness = await fetch(`${gateway.url}/readyz`);
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toMatchObject({ status: 'not-ready', checks: { keys: 'not loaded' } });
    expect(await errorOf(await passwordGrant(gateway.url))).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' });
    expect(await errorOf(await callProtected(gateway.url, 'a.b.c'))).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' });
    expect((await fetch(`${gateway.url}/oauth2/v1/keys`)).status).toBe(503);
    // Revoking cannot be confirmed before the keys are loaded: a 503, never a false 200.
    expect(await errorOf(await revoke(gateway.url, 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln'))).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE' });

    const redis = await RedisServer.start({ port });
    try {
      await gateway.ready();
      const tokens = await issueTokens(gateway.url);
      expect((await callProtected(gateway.url, tokens.access_token)).status).toBe(200);
    } finally {
      await gateway.stop();
      running.splice(running.indexOf(gateway), 1);
      await redis.dispose();
    }
  });
});

describe('redis over TLS (rediss://)', () => {
  it('connects to a Redis that only speaks TLS, trusting a private CA through NODE_EXTRA_CA_CERTS', async () => {
    const certificates = await makeCertificates();
    const tlsPort = await freePort();
    const redis = await RedisServer.start({
      args: ['--tls-port', String(tlsPort), '--tls-cert-file', certificates.cert, '--tls-key-file', certificates.key, '--tls-ca-cert-file', certificates.ca, '--tls-auth-clients', 'no'],
    });
    try {
      const gateway = await GatewayProcess.start(
        {
          environment: uniqueEnvironment(),
          store: `rediss://127.0.0.1:${tlsPort}/0`,
          routes: [{ path: '/business/score/v2/', upstream: upstream.url, timeout: '2s' }],
        },
        { NODE_EXTRA_CA_CERTS: certificates.ca },
      );
      running.push(gateway);
      await gateway.ready();
      const tokens = await issueTokens(gateway.url);
      expect((await callProtected(gateway.url, tokens.access_token)).status).toBe(200);
    } finally {
      await redis.dispose();
      await rm(certificates.dir, { recursive: true, force: true });
    }
  });
});

describe('gateways on a redis cluster', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await RedisCluster.start(3);
  }, 60_000);
  afterAll(() => cluster.dispose());

  it('share tokens, refresh and revocations across instances', async () => {
    const environment = uniqueEnvironment();
    const store = { redis: { cluster: cluster.urls } };
    const [a, b] = await instances(2, { store, environment });
    const tokens = await issueTokens(a.url);
    expect((await callProtected(b.url, tokens.access_token)).status).toBe(200);
    const refreshed = (await (await refreshGrant(b.url, tokens.refresh_token)).json()) as { access_token: string; refresh_token: string };
    expect((await callProtected(a.url, refreshed.access_token)).status).toBe(200);
    expect((await revoke(a.url, refreshed.refresh_token)).status).toBe(200);
    await eventually(async () => (await callProtected(b.url, refreshed.access_token)).status === 401);
  });
});
