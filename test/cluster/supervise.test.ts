import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, formatIssue } from '../../src/config/errors.js';
import { loadGatewayConfig } from '../../src/config/load.js';
import { GatewayProcess } from '../helpers/gateway-process.js';
import { issueTokens, revoke } from '../helpers/gateway.js';
import { RedisServer } from '../helpers/redis-server.js';
import { startUpstream, type TestUpstream } from '../helpers/upstream.js';
import { childrenOf } from '../helpers/processes.js';
import { eventually } from '../helpers/eventually.js';

/** The shared bounded poll, for a value: resolves with the first one `accept` takes. */
const until = <T>(probe: () => T | Promise<T>, accept: (value: T) => boolean, what: string): Promise<T> =>
  eventually(async () => {
    const value = await probe();
    return accept(value) ? { value } : undefined;
  }, { timeoutMs: 10_000, intervalMs: 50, what }).then(({ value }) => value);

/** A protected call on a connection of its own, so that the cluster hands it to the next worker. */
function callOnNewConnection(url: string, token: string, path = '/business/score/v2/directors'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { agent: false, headers: { authorization: `Bearer ${token}`, connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    // Bounded: a call that gets no answer fails instead of hanging the test.
    req.setTimeout(5_000, () => req.destroy(new Error(`no answer from ${path} within 5 s`)));
    req.end();
  });
}

/**
 * Both workers listen (a worker gets connections from the moment it listens)
 * and /readyz answered 200 on eight fresh connections in a row: each has its
 * keys and its revocation list.
 */
const everyWorkerReady = async (gateway: GatewayProcess, url: string) => {
  await until(
    () => new Set(gateway.lines.filter((line) => line.msg === 'token-gateway listening' && line.url === url).map((line) => line.pid)).size,
    (listening) => listening === 2,
    'both workers listening',
  );
  return until(
    () => Promise.all(Array.from({ length: 8 }, () => callOnNewConnection(url, '', '/readyz').catch(() => 0))),
    (statuses) => statuses.every((status) => status === 200),
    'every worker ready',
  );
};

describe('workers', () => {
  it('refuses more than one worker with the in-memory store, and says why', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'token-gateway-workers-'));
    try {
      for (const workers of ['2', 'auto']) {
        await writeFile(join(dir, 'gateway.yaml'), `store: memory\nworkers: ${workers}\n`);
        const error = await loadGatewayConfig(join(dir, 'gateway.yaml')).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).issues.map(formatIssue).join('\n')).toMatch(/gateway\.yaml:2: workers: more than one worker needs a shared store \(store: redis\)/);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('stops the gateway with the worker\'s exit code when the workers cannot start (no key-encryption key), instead of waiting forever', async () => {
    const redis = await RedisServer.start();
    try {
      const started = GatewayProcess.start(
        { workers: 2, environment: 'workers-no-kek', store: { redis: { url: `redis://127.0.0.1:${redis.port}` } } },
        { TOKEN_GATEWAY_KEY_ENCRYPTION_KEY: '' },
      );
      // Before the fix each worker printed its error and stayed alive on its channel to the primary: no exit, no listener.
      await expect(started).rejects.toThrow(/^gateway exited with 1 before listening: .*token-gateway serve: the Redis store keeps the signing keys encrypted/s);
    } finally {
      await redis.stop();
    }
  });

  describe('two workers on one Redis', () => {
    let redis: RedisServer;
    let upstream: TestUpstream;
    let gateway: GatewayProcess;
    beforeAll(async () => {
      redis = await RedisServer.start();
      upstream = await startUpstream();
      gateway = await GatewayProcess.start({
        workers: 2,
        environment: 'workers',
        store: { redis: { url: `redis://127.0.0.1:${redis.port}` } },
        routes: [{ path: '/business/score/v2/', upstream: upstream.url, timeout: '2s' }],
      });
      await everyWorkerReady(gateway, gateway.url);
    });
    afterAll(async () => {
      await gateway?.stop();
      await upstream?.close();
      await redis?.stop();
    });

    it('share one port and act as one gateway: tokens and revocations hold in both', async () => {
      expect(childrenOf(gateway.pid)).toHaveLength(2);
      const tokens = await issueTokens(gateway.url);
      const statuses = await Promise.all(Array.from({ length: 8 }, () => callOnNewConnection(gateway.url, tokens.access_token)));
      expect(statuses).toEqual(Array(8).fill(200));
      expect((await revoke(gateway.url, tokens.access_token)).status).toBe(200);
      const after = await Promise.all(Array.from({ length: 8 }, () => callOnNewConnection(gateway.url, tokens.access_token)));
      expect(after).toEqual(Array(8).fill(401));
      // Both workers answered: their access lines (written within 100 ms) carry two different pids.
      const answeredBy = await until(
        () => new Set(gateway.lines.filter((line) => line.msg === 'request' && line.route === '/business/score/v2/').map((line) => line.pid)),
        (pids) => pids.size === 2,
        'access lines of both workers',
      );
      expect(answeredBy.size).toBe(2);
    });

    it('passes SIGHUP on to every worker', async () => {
      gateway.signal('SIGHUP');
      const reloads = await until(
        () => new Set(gateway.lines.filter((line) => line.msg === 'policies reloaded' && line.reason === 'SIGHUP').map((line) => line.pid)),
        (pids) => pids.size === 2,
        'both workers reloaded',
      );
      expect(reloads.size).toBe(2);
    });

    it('replaces a worker killed under load without one 503: the replacement listens only once its store and keys are loaded', async () => {
      const tokens = await issueTokens(gateway.url);
      const [victim, survivor] = childrenOf(gateway.pid) as [number, number];
      const statuses: number[] = [];
      let cut = 0;
      let loading = true;
      // Four callers, each on a new connection per call, so that the cluster spreads them over every listening worker.
      const caller = async () => {
        const stopAt = Date.now() + 30_000; // bounded, whatever happens to the test
        while (loading && Date.now() < stopAt) {
          await callOnNewConnection(gateway.url, tokens.access_token).then(
            (status) => statuses.push(status),
            // A call the killed worker had taken, or that node:cluster was handing to it as it died (its round-robin
            // handoff to a dead worker is never answered: the connection waits for the client's timeout).
            () => cut++,
          );
        }
      };
      const callers = Array.from({ length: 4 }, caller);
      try {
        await until(() => statuses.length, (count) => count >= 20, 'the load running');
        process.kill(victim, 'SIGKILL');
        const replacement = (await until(() => childrenOf(gateway.pid), (pids) => pids.length === 2 && !pids.includes(victim), 'a replacement worker')).find(
          (pid) => pid !== survivor,
        )!;
        const linesOf = (msg: string) => gateway.lines.filter((line) => line.msg === msg && line.pid === replacement);
        // It serves its share of the load once it listens.
        await until(() => linesOf('request').length, (served) => served >= 10, 'the replacement serving calls');
        const order = gateway.lines.filter((line) => line.pid === replacement).map((line) => line.msg);
        expect(order.indexOf('waiting for the store and the signing keys before listening')).toBeLessThan(order.indexOf('token-gateway listening'));
      } finally {
        loading = false;
        await Promise.all(callers);
      }
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(cut).toBeLessThanOrEqual(4);
    });

    it('keeps a worker started while redis is away out of the rotation: listed as starting, every call served by the others; it listens once redis is back', async () => {
      const tokens = await issueTokens(gateway.url);
      const adminReadiness = async () => {
        const response = await fetch(`${gateway.adminUrl}/readyz`);
        return { status: response.status, body: (await response.json()) as { status: string; workers: Array<{ pid: number; status: string }> } };
      };
      await redis.stop();
      try {
        await until(adminReadiness, ({ body }) => body.status === 'degraded', 'the cluster degraded');
        const [victim, survivor] = childrenOf(gateway.pid) as [number, number];
        process.kill(victim, 'SIGKILL');
        const replacement = (await until(() => childrenOf(gateway.pid), (pids) => pids.length === 2 && !pids.includes(victim), 'a replacement worker')).find(
          (pid) => pid !== survivor,
        )!;
        await until(
          () => gateway.lines.some((line) => line.pid === replacement && line.msg === 'waiting for the store and the signing keys before listening'),
          Boolean,
          'the replacement waiting',
        );
        const { status, body } = await adminReadiness();
        expect(status).toBe(200);
        expect(body.status).toBe('degraded');
        expect(body.workers).toContainEqual(expect.objectContaining({ pid: replacement, status: 'starting' }));
        expect(body.workers).toContainEqual(expect.objectContaining({ pid: survivor, status: 'degraded' }));
        const statuses = await Promise.all(Array.from({ length: 12 }, () => callOnNewConnection(gateway.url, tokens.access_token)));
        expect(statuses).toEqual(Array(12).fill(200));
        expect(gateway.lines.some((line) => line.pid === replacement && line.msg === 'token-gateway listening')).toBe(false);
      } finally {
        await redis.launch();
      }
      await until(adminReadiness, ({ status, body }) => status === 200 && body.status === 'ready' && body.workers.every((worker) => worker.status === 'ready'), 'every worker ready');
    });

    it('replaces workers that die, even all of them at once, then stops every worker on SIGTERM', async () => {
      const [victim, survivor] = childrenOf(gateway.pid) as [number, number];
      process.kill(victim, 'SIGKILL');
      const replaced = await until(() => childrenOf(gateway.pid), (pids) => pids.length === 2 && !pids.includes(victim), 'a replacement worker');
      expect(replaced).toContain(survivor);
      // The primary names the dead worker in workerPid; its own pid stays the line's one `pid`.
      const died = gateway.output.stdout.split('\n').find((line) => line.includes('"msg":"worker died; starting a replacement"') && line.includes(`"workerPid":${victim},`))!;
      expect(JSON.parse(died)).toMatchObject({ level: 50, pid: gateway.pid, workerPid: victim, code: null, signal: 'SIGKILL' });
      expect(died.match(/"pid":/g)).toHaveLength(1);
      for (const pid of replaced) process.kill(pid, 'SIGKILL');
      const fresh = await until(() => childrenOf(gateway.pid), (pids) => pids.length === 2 && !pids.some((pid) => replaced.includes(pid)), 'two new workers');
      expect(gateway.alive).toBe(true);
      // With every worker gone the cluster closed the listening socket; listen.port 0 then gives the new ones a new port,
      // which only their own lines tell (they may log after the forks are visible).
      const listening = await until(
        () => gateway.lines.filter((line) => line.msg === 'token-gateway listening' && fresh.includes(line.pid as number)),
        (lines) => lines.length > 0,
        'a new worker listening',
      );
      const url = listening[0]!.url as string;
      await everyWorkerReady(gateway, url);
      const tokens = await issueTokens(url);
      expect(await callOnNewConnection(url, tokens.access_token)).toBe(200);

      const workers = childrenOf(gateway.pid);
      gateway.signal('SIGTERM');
      expect(await gateway.exit).toBe(0);
      for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
    });
  });
});
