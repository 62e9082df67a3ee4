import { Cluster, type Redis } from 'ioredis';
import { withDeadline } from './availability.js';
import { connectionStateText, type RedisClient } from './connection.js';

/**
 * Resolves once every node the store writes to answers a PING within
 * `deadlineMs`: the one server (or the master Sentinel named), or every
 * master that owns slots of a cluster. A cluster connection stays "ready"
 * while one of its masters is down or restarting, so its state says
 * nothing; the slot map is asked again and each owner pinged directly,
 * which fails at once on a refused connection instead of going round
 * ioredis's redirection retries.
 */
export async function probeNodes(client: RedisClient, deadlineMs: number): Promise<void> {
  if (client.status !== 'ready') throw new Error(`redis is ${connectionStateText(client.status)}`);
  if (!(client instanceof Cluster)) {
    await withDeadline(client.ping(), deadlineMs);
    return;
  }
  await withDeadline(
    new Promise<void>((resolve, reject) => client.refreshSlotsCache((error) => (error ? reject(error) : resolve()))),
    deadlineMs,
  );
  const pool = new Map(client.nodes('master').map((node) => [nodeKey(node), node]));
  await Promise.all(
    slotOwners(client).map((key) => {
      const node = pool.get(key);
      if (!node) throw new Error(`no connection to cluster master ${key}`);
      return withDeadline(node.ping(), deadlineMs);
    }),
  );
}

/** The masters the slot map names (`host:port`), each once. */
export function slotOwners(cluster: Cluster): string[] {
  const owners = new Set<string>();
  for (const nodes of cluster.slots) if (nodes?.[0]) owners.add(nodes[0]);
  return [...owners];
}

/** A node as the slot map names it. */
export const nodeKey = (node: Redis): string => `${node.options.host}:${node.options.port}`;

/** The connections whose servers the store inspects: the server itself, or every master of a cluster it is connected to. */
export function serverConnections(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}
