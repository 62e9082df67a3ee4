import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { StartupError } from '../../src/config/errors.js';
import { loadGatewayConfig } from '../../src/config/load.js';
import { startGateway } from '../../src/lifecycle/start.js';
import { KEK_ENV } from '../../src/keys/sealing.js';
import { accountsYaml } from '../helpers/accounts.js';
import { eventually } from '../helpers/eventually.js';
import { TEST_KEK } from '../helpers/gateway-process.js';
import { freePort, RedisServer } from '../helpers/redis-server.js';
import { uniqueEnvironment } from '../helpers/redis-store.js';

const policyFile = (pattern: string) =>
  stringify({ policies: [{ name: 'guard', kind: 'regex-protection', builtin: [], patterns: [{ name: 'blocked', pattern }] }] });

/** A start that fails half-way (src/gateway.ts) releases what it had already built: nothing of it lives on. */
describe('a gateway that fails to start', () => {
  let dir: string;
  let taken: Server;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-failed-start-'));
    await mkdir(join(dir, 'policies'));
    await writeFile(join(dir, 'policies', 'guard.yaml'), policyFile('first'));
    await writeFile(join(dir, 'accounts.yaml'), await accountsYaml());
    taken = createServer();
    await new Promise<void>((listening) => taken.listen(0, '127.0.0.1', listening));
    port = (taken.address() as AddressInfo).port;
  });
  afterAll(async () => {
    taken.close();
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (file: string, listen: Record<string, unknown>, admin: Record<string, unknown>, lines: string[]) => {
    await writeFile(join(dir, file), stringify({ listen, admin, accounts: './accounts.yaml' }));
    return startGateway({ config: await loadGatewayConfig(join(dir, file)), logDestination: { write: (line: string) => void lines.push(line) } });
  };

  it.each([
    ['the client port', { host: '127.0.0.1', port: () => port }, { port: () => 0 }],
    ['the admin port', { host: '127.0.0.1', port: () => 0 }, { port: () => port }],
  ])('no longer watches the policies folder when %s is taken', async (_what, listen, admin) => {
    const failedLines: string[] = [];
    const failed = start('failed.yaml', { host: listen.host, port: listen.port() }, { port: admin.port() }, failedLines);
    await expect(failed).rejects.toBeInstanceOf(StartupError);

    // A gateway that did start, on the same folder, says when the edit below has been seen and reloaded.
    const liveLines: string[] = [];
    const live = await start('live.yaml', { host: '127.0.0.1', port: 0 }, { port: 0 }, liveLines);
    try {
      const reloads = (lines: string[]) => lines.filter((line) => line.includes('"msg":"policies reloaded"')).length;
      const target = join(dir, 'policies', 'guard.yaml');
      await writeFile(`${target}.tmp`, policyFile(`edit-${Math.random()}`));
      await rename(`${target}.tmp`, target);
      await eventually(() => reloads(liveLines) > 0);
      // Both watchers saw the same change after the same settling delay: the failed one had its chance.
      await live.reloadPolicies('test: settle');
      expect(reloads(failedLines)).toBe(0);
    } finally {
      await live.close();
    }
  });
});

/** A cluster worker's start (serve sets listenWhenReady): node:cluster gives a worker connections from the moment it listens. */
describe('a gateway told to listen only once ready', () => {
  it('binds nothing while its Redis is away, and listens ready (never 503) once the store and the keys are loaded', async () => {
    process.env[KEK_ENV] ??= TEST_KEK;
    const dir = await mkdtemp(join(tmpdir(), 'tg-listen-when-ready-'));
    const [redisPort, listenPort] = [await freePort(), await freePort()];
    let redis: RedisServer | undefined;
    const lines: string[] = [];
    try {
      await writeFile(join(dir, 'accounts.yaml'), await accountsYaml());
      await writeFile(
        join(dir, 'gateway.yaml'),
        stringify({ listen: { host: '127.0.0.1', port: listenPort }, admin: { port: 0 }, accounts: './accounts.yaml', environment: uniqueEnvironment(), store: `redis://127.0.0.1:${redisPort}` }),
      );
      const config = await loadGatewayConfig(join(dir, 'gateway.yaml'));
      let started = false;
      const starting = startGateway({ config, listenWhenReady: true, admin: false, logDestination: { write: (line: string) => void lines.push(line) } });
      void starting.then(() => (started = true), () => undefined);
      await eventually(() => lines.some((line) => line.includes('waiting for the store and the signing keys before listening')));
      await expect(fetch(`http://127.0.0.1:${listenPort}/readyz`)).rejects.toThrow();
      expect(started).toBe(false);

      redis = await RedisServer.start({ port: redisPort });
      const gateway = await starting;
      try {
        const readiness = await fetch(`${gateway.url}/readyz`);
        expect(readiness.status).toBe(200);
        expect(await readiness.json()).toMatchObject({ status: 'ready' });
      } finally {
        await gateway.close();
      }
    } finally {
      await redis?.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
