import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callProtected, issueTokens, passwordGrant, revoke, untilDegraded, type TokenResponse } from '../../helpers/gateway.js';
import { GatewayProcess } from '../../helpers/gateway-process.js';
import { rawCommand, RedisCluster, type RedisServer } from '../../helpers/redis-server.js';
import { ManualClock } from '../../helpers/clock.js';
import { connectedStore, redisStoreConfig, uniqueEnvironment, untilReady } from '../../helpers/redis-store.js';
import { RESTORE_WAIT_MS } from '../../../src/store/redis/store.js';
import { eventually } from '../../helpers/eventually.js';
import { startUpstream, type TestUpstream } from '../../helpers/upstream.js';

/**
 * Gateways on a real three-master Redis Cluster (`redis-cli --cluster
 * create`, no replicas), one master killed with SIGKILL and started again
 * empty, as an operator would see it: writes answer 503 within
 * command_timeout, valid tokens keep being served from the mirror, revoked
 * ones stay refused everywhere, the list is written back within a second of
 * the cluster being healthy, and an instance started during the outage
 * refuses revoked tokens from its first ready moment.
 */

/** The default, as in the report: three in a row made a grant answer after 3 s. */
const COMMAND_TIMEOUT_MS = 1_000;
/** What a loaded 2-core machine adds to a 503 (the client-credentials check is skipped, the exchange is not). */
const SLACK_MS = 250;
/**
 * A grant already past that check when the master dies hashes the client's secret and the user's password (argon2,
 * up to a few hundred ms each on a loaded 2-core machine) and waits for one deadline at most: far from three.
 */
const HASHING_MS = 900;

let cluster: RedisCluster;
let upstream: TestUpstream;
const running: GatewayProcess[] = [];
beforeAll(async () => {
  [cluster, upstream] = await Promise.all([RedisCluster.start(3), startUpstream()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([cluster?.dispose(), upstream?.close()]);
});
afterEach(async () => {
  const stopped = running.splice(0);
  await Promise.all(stopped.map((gateway) => gateway.stop()));
  for (const gateway of stopped) expect(gateway.failures()).toEqual([]);
});

async function startInstance(environment: string, wait = true): Promise<GatewayProcess> {
  const gateway = await GatewayProcess.start({
    environment,
    store: { redis: { cluster: cluster.urls, command_timeout: `${COMMAND_TIMEOUT_MS}ms` } },
    issuer: 'https://api.example.com',
    routes: [{ path: '/business/score/v2/', upstream: upstream.url, timeout: '2s' }],
  });
  running.push(gateway);
  if (wait) await gateway.ready();
  return gateway;
}

/** The master that serves `key`'s slot, from the cluster's own answers. */
async function masterHolding(key: string): Promise<RedisServer> {
  const port = cluster.nodes[0]!.port;
  const slot = Number((await rawCommand(port, `CLUSTER KEYSLOT ${key}`)).slice(1));
  const table = await rawCommand(port, 'CLUSTER NODES');
  for (const line of table.split('\n')) {
    const [, address, , , , , , , ...ranges] = line.trim().split(' ');
    const owns = ranges.some((range) => {
      const [from, to = from] = range.split('-').map(Number);
      return from !== undefined && to !== undefined && slot >= from && slot <= to;
    });
    const found = owns && cluster.nodes.find((node) => address?.startsWith(`127.0.0.1:${node.port}@`));
    if (found) return found;
  }
  throw new Error(`no master holds slot ${slot}`);
}

const clusterHealthy = async () => {
  for (const node of cluster.nodes) if (!(await rawCommand(node.port, 'CLUSTER INFO')).includes('cluster_state:ok')) return false;
  return true;
};

/** A password grant, timed. */
async function timedGrant(url: string): Promise<{ status: number; retryAfter: string | null; ms: number }> {
  const started = performance.now();
  const response = await passwordGrant(url);
  await response.arrayBuffer();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), ms: performance.now() - started };
}

/** Protected calls in a loop until stopped (bounded at 60 s), counting statuses per token. */
function steadyCalls(calls: Array<{ gateway: () => GatewayProcess | undefined; token: TokenResponse }>) {
  const statuses = calls.map(() => new Map<number, number>());
  let on = true;
  const done = (async () => {
    const stopAt = Date.now() + 60_000;
    while (on && Date.now() < stopAt) {
      await Promise.all(
        calls.map(async ({ gateway, token }, i) => {
          const target = gateway();
          if (!target) return;
          const status = (await callProtected(target.url, token.access_token)).status;
          statuses[i]!.set(status, (statuses[i]!.get(status) ?? 0) + 1);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    statuses,
    stop: async () => {
      on = false;
      await done;
    },
  };
}

const only = (statuses: Map<number, number>) => [...statuses.keys()].sort();

describe('a redis cluster master that stops answering without closing its connections (SIGSTOP)', () => {
  it('makes the first call that needs it answer 503 at its deadline, every call after it at once, until it answers again', async () => {
    const store = await connectedStore(redisStoreConfig({ mode: 'cluster', nodes: cluster.urls }, { command_timeout: COMMAND_TIMEOUT_MS }), uniqueEnvironment(), new ManualClock());
    // A key's slot is its hash tag's: the grant's refresh tokens live on this master, whatever the prefix.
    const frozen = await masterHolding('{frozen-grant}');
    const pid = Number(/process_id:(\d+)/.exec(await rawCommand(frozen.port, 'INFO server'))?.[1]);
    const ref = { grantId: 'frozen-grant', hash: 'h' };
    const timed = async (call: () => Promise<unknown>) => {
      const started = performance.now();
      const code = await call().then(
        () => 'ok',
        (error: { code?: string }) => error.code,
      );
      return { code, ms: performance.now() - started };
    };
    process.kill(pid, 'SIGSTOP');
    try {
      const first = await timed(() => store.refreshTokens.find(ref));
      expect(first.code).toBe('SERVICE_UNAVAILABLE');
      expect(first.ms).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 10);
      expect(first.ms).toBeLessThan(COMMAND_TIMEOUT_MS + SLACK_MS);
      const next = await timed(() => store.revocations.add({ kind: 'token', id: 'elsewhere', expiresAt: Date.now() + 60_000 }));
      expect(next.code).toBe('SERVICE_UNAVAILABLE');
      expect(next.ms).toBeLessThan(150);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    try {
      await untilReady(store);
      await eventually(clusterHealthy, { timeoutMs: 15_000 });
      await expect(store.refreshTokens.find(ref)).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe('gateways on a redis cluster that loses a master and gets it back empty', () => {
  it('answer writes 503 within command_timeout, serve valid tokens from the mirror, and restore the revocation list at once', async () => {
    const environment = uniqueEnvironment();
    const [a, b] = await Promise.all([startInstance(environment), startInstance(environment)]);
    const kept = await issueTokens(a.url);
    const revokedToken = await issueTokens(b.url);
    const revokedGrant = await issueTokens(a.url);
    expect((await revoke(b.url, revokedToken.access_token)).status).toBe(200);
    expect((await revoke(a.url, revokedGrant.refresh_token)).status).toBe(200);
    for (const gateway of [a, b]) {
      for (const tokens of [revokedToken, revokedGrant]) await eventually(async () => (await callProtected(gateway.url, tokens.access_token)).status === 401);
    }
    const listKey = `tg:${environment}:{revocations}`;
    const holder = await masterHolding(listKey);

    let late: GatewayProcess | undefined;
    const traffic = steadyCalls([
      { gateway: () => a, token: kept },
      { gateway: () => b, token: kept },
      { gateway: () => a, token: revokedToken },
      { gateway: () => b, token: revokedGrant },
      // The instance started during the outage: never a 200 for a revoked token, ready or not.
      { gateway: () => late, token: revokedToken },
      { gateway: () => late, token: revokedGrant },
    ]);
    let healthyAt = 0;
    try {
      await holder.kill();
      // Sent as the master dies: a grant whose keys all live on the other masters may still succeed, if its calls
      // beat the news of the lost connection; either way its store calls take one deadline at most.
      const asItDies = await Promise.all([timedGrant(a.url), timedGrant(b.url)]);
      for (const grant of asItDies) {
        expect([200, 503]).toContain(grant.status);
        expect(grant.ms).toBeLessThan(COMMAND_TIMEOUT_MS + HASHING_MS);
      }
      // Once the loss is known (each instance's /readyz says degraded: within 3 s, however loaded the machine; a fixed
      // 300 ms wait was a guess that a busy test run disproved), and again once the cluster has marked the master
      // failed (cluster-node-timeout 2 s: CLUSTERDOWN from the other masters): 503 with Retry-After, at once.
      for (const gateway of [a, b]) await untilDegraded(gateway.url, 3_000);
      const known = await Promise.all([timedGrant(a.url), timedGrant(b.url)]);
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      const failed = await Promise.all([timedGrant(a.url), timedGrant(b.url)]);
      for (const grant of [...known, ...failed]) {
        expect(grant).toMatchObject({ status: 503, retryAfter: '1' });
        expect(grant.ms).toBeLessThan(COMMAND_TIMEOUT_MS + SLACK_MS);
      }

      late = await startInstance(environment, false);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect((await fetch(`${late.url}/readyz`)).status).toBe(503);

      await holder.launch(); // the same node, its slots, no data
      await eventually(clusterHealthy, { timeoutMs: 15_000 });
      healthyAt = Date.now();
      // Written back by a and b within a second of the cluster being whole again.
      const jti = decodeJwt(revokedToken.access_token).jti as string;
      const sid = decodeJwt(revokedGrant.access_token).sid as string;
      await eventually(async () => {
        const reply = await rawCommand(holder.port, `ZMSCORE ${listKey} token:${jti} grant:${sid}`);
        return reply.startsWith('*2') && !reply.includes('$-1');
      }, { timeoutMs: 1_000, what: 'the revocation list written back within a second of the cluster being whole' });

      await late.ready();
      expect((await callProtected(late.url, revokedToken.access_token)).status).toBe(401);
      expect((await callProtected(late.url, kept.access_token)).status).toBe(200);
      await eventually(async () => (await passwordGrant(a.url)).status === 200);
    } finally {
      await traffic.stop();
    }
    const [keptOnA, keptOnB, revokedOnA, revokedOnB, lateRevokedToken, lateRevokedGrant] = traffic.statuses.map(only);
    expect(keptOnA).toEqual([200]);
    expect(keptOnB).toEqual([200]);
    expect(revokedOnA).toEqual([401]);
    expect(revokedOnB).toEqual([401]);
    // Before its list is loaded, a starting instance answers 503, never 200.
    expect(lateRevokedToken).not.toContain(200);
    expect(lateRevokedGrant).not.toContain(200);
    expect(healthyAt).toBeGreaterThan(0);

    // An instance started now learns them from the restored list.
    const after = await startInstance(environment);
    expect((await callProtected(after.url, revokedGrant.access_token)).status).toBe(401);
  }, 90_000);

  it('counts a master out of reach while starting as an outage: an instance started then waits for its peers instead of taking the empty list', async () => {
    const environment = uniqueEnvironment();
    const holder = await masterHolding(`tg:${environment}:{revocations}`);
    await holder.kill();
    try {
      // Every master left says the cluster is down (cluster-node-timeout 2 s): ioredis's ready check then fails
      // wherever it lands, and ioredis starts over without an 'error' event (a node it could not reach raises a
      // 'node error', but the ready check asks any node, and the slot map is asked of nodes in random order).
      const others = cluster.nodes.filter((node) => node !== holder);
      await eventually(async () => (await Promise.all(others.map((node) => rawCommand(node.port, 'CLUSTER INFO')))).every((info) => info.includes('cluster_state:fail')), {
        timeoutMs: 10_000,
        what: 'the cluster to mark the master failed',
      });
      const starting = await startInstance(environment, false);
      // The master comes back only once the instance has said it found the cluster not ready. A fixed pause here let
      // a slow start connect after the master was back: the instance then saw no outage at all, and the test waited
      // for a line that could not come.
      const saidNotReady = (line: Record<string, unknown>) =>
        line.msg === 'redis unreachable; retrying with back-off' && String((line.err as { message?: unknown } | undefined)?.message).startsWith('not ready yet (');
      await eventually(() => starting.lines.some(saidNotReady), {
        timeoutMs: 15_000,
        what: 'the starting instance to find the cluster not ready',
      });
      await holder.launch();
      await eventually(clusterHealthy, { timeoutMs: 15_000, what: 'the cluster whole again' });
      // No peer holds a list here, so the wait is the bounded one (RESTORE_WAIT_MS, 10 s), then the empty store is
      // adopted. Before, it was adopted at once, as if nothing had happened.
      await eventually(() => starting.lines.some((line) => String(line.msg).startsWith('redis has no revocation list and a running instance should write it back')), {
        // The instance logs it once ioredis has reconnected to the whole cluster, after its own backoff: 5 s and
        // then 10 s each ran out once in CI. The wait it announces is RESTORE_WAIT_MS, checked by ready() below.
        timeoutMs: 20_000,
        what: 'the starting instance to wait for a peer',
      });
      await starting.ready(RESTORE_WAIT_MS + 15_000);
    } finally {
      if (!(await clusterHealthy().catch(() => false))) await holder.launch().catch(() => undefined);
    }
  }, 90_000);
});
