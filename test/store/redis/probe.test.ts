import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadlineExceeded } from '../../../src/store/redis/availability.js';
import { createRedisClient, type RedisClient } from '../../../src/store/redis/connection.js';
import { nodeKey, probeNodes, serverConnections, slotOwners } from '../../../src/store/redis/probe.js';
import { eventually } from '../../helpers/eventually.js';
import { rawCommand, RedisCluster, RedisServer } from '../../helpers/redis-server.js';
import { refusingPort } from '../../helpers/refusing-port.js';
import { redisStoreConfig } from '../../helpers/redis-store.js';

/**
 * The outage probe (src/store/redis/probe.ts; docs/several-instances.md,
 * "Faults"): it resolves only once every node the store writes to answers a
 * PING within the deadline, on real redis-server processes.
 */

const DEADLINE_MS = 300;
/** What a loaded 2-core machine adds to a rejection that should come at once or at the deadline. */
const SLACK_MS = 400;

const opened: RedisClient[] = [];
async function connected(client: RedisClient): Promise<RedisClient> {
  opened.push(client);
  client.on('error', () => undefined); // refused connections are what these tests make
  await client.connect().catch(() => undefined);
  await eventually(() => client.status === 'ready', { what: () => `the client to be ready (${client.status})` });
  return client;
}
afterAll(() => {
  for (const client of opened) client.disconnect();
});

async function rejection(probe: Promise<void>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  const error = await probe.then(() => undefined, (failure: unknown) => failure);
  return { error, ms: Date.now() - started };
}

describe('probing one server', () => {
  let redis: RedisServer;
  let client: RedisClient;
  beforeAll(async () => {
    redis = await RedisServer.start();
    client = await connected(createRedisClient(redisStoreConfig({ mode: 'single', url: redis.url })));
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it('resolves when the server answers', async () => {
    await expect(probeNodes(client, DEADLINE_MS)).resolves.toBeUndefined();
  });

  it('rejects at once, naming the state, a connection not connected yet', async () => {
    const idle = createRedisClient(redisStoreConfig({ mode: 'single', url: redis.url }));
    opened.push(idle);
    await expect(probeNodes(idle, DEADLINE_MS)).rejects.toThrow('redis is not connected yet');
  });

  it('rejects at once, naming the state, a connection to a server that is not there', async () => {
    const nowhere = createRedisClient(redisStoreConfig({ mode: 'single', url: `redis://127.0.0.1:${await refusingPort()}` }));
    opened.push(nowhere);
    nowhere.on('error', () => undefined);
    void nowhere.connect().catch(() => undefined);
    await eventually(() => nowhere.status === 'reconnecting', { what: () => `the client to be reconnecting (${nowhere.status})` });
    const { error, ms } = await rejection(probeNodes(nowhere, DEADLINE_MS));
    expect((error as Error).message).toBe('redis is reconnecting');
    expect(ms).toBeLessThan(SLACK_MS);
  });

  it('gives a server that does not answer no more than the deadline', async () => {
    expect(await rawCommand(redis.port, `CLIENT PAUSE ${DEADLINE_MS * 2} ALL`)).toBe('+OK\r\n');
    const { error, ms } = await rejection(probeNodes(client, DEADLINE_MS));
    expect(error).toBeInstanceOf(DeadlineExceeded);
    expect(ms).toBeGreaterThanOrEqual(DEADLINE_MS - 5);
    expect(ms).toBeLessThan(DEADLINE_MS + SLACK_MS);
    await eventually(() => probeNodes(client, DEADLINE_MS).then(() => true), { what: 'the pause to end' });
  });

  it('inspects the server itself', () => {
    expect(serverConnections(client)).toEqual([client]);
  });
});

describe('probing a cluster', () => {
  let cluster: RedisCluster;
  let client: Cluster;
  const ports = () => cluster.nodes.map((node) => `127.0.0.1:${node.port}`).sort();
  beforeAll(async () => {
    cluster = await RedisCluster.start(3);
    client = (await connected(createRedisClient(redisStoreConfig({ mode: 'cluster', nodes: cluster.urls })))) as Cluster;
  }, 60_000);
  afterAll(async () => {
    await cluster?.dispose();
  });

  it('knows the masters that own slots from the slot map, each once, as host:port', () => {
    expect(slotOwners(client).sort()).toEqual(ports());
  });

  it('inspects every master it is connected to, named as the slot map names them', () => {
    const masters = serverConnections(client);
    expect(masters.every((node) => node instanceof Redis)).toBe(true);
    expect(masters.map(nodeKey).sort()).toEqual(ports());
  });

  it('resolves when every master answers', async () => {
    await expect(probeNodes(client, DEADLINE_MS)).resolves.toBeUndefined();
  });

  it('rejects while one master is down, though the cluster connection stays ready, and resolves once it is back', async () => {
    const lost = cluster.nodes[1]!;
    await lost.kill();
    expect(client.status).toBe('ready');
    const { error, ms } = await rejection(probeNodes(client, DEADLINE_MS));
    expect(error).toBeInstanceOf(Error);
    expect(ms).toBeLessThan(2 * DEADLINE_MS + SLACK_MS);
    // Back on its port with its cluster config (nodes.conf), empty.
    await lost.launch();
    await eventually(() => probeNodes(client, DEADLINE_MS).then(() => true), { timeoutMs: 10_000, what: 'every master to answer again' });
  });
});
