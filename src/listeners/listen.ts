import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StartupError } from '../config/errors.js';

/** Which listener, by the config keys that place it: what an operator changes when it cannot listen. */
export interface ListenerKeys {
  readonly host: string;
  readonly port: string;
}

export const CLIENT_LISTENER: ListenerKeys = { host: 'listen.host', port: 'listen.port' };
export const TLS_LISTENER: ListenerKeys = { host: 'tls.host', port: 'tls.port' };
export const ADMIN_LISTENER: ListenerKeys = { host: 'admin.host', port: 'admin.port' };

/** Listens, or fails with a StartupError naming the listener's keys and what to do. */
export function listen(server: Server, host: string, port: number, keys: ListenerKeys): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(listenFailure(error, host, port, keys));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * A bind that failed, in the words of the config: two gateways on one host
 * collide first on the admin port (9901 by default), which the operator may
 * never have written down. Other errors pass through unchanged.
 */
export function listenFailure(error: unknown, host: string, port: number, keys: ListenerKeys): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${keys.host}: ${host}, ${keys.port}: ${port}`;
  const hint =
    code === 'EADDRINUSE'
      ? `another process listens there (another token-gateway?): stop it or choose another ${keys.port} (0 picks a free one)`
      : code === 'EACCES'
        ? `not allowed: ports below 1024 need privileges (CAP_NET_BIND_SERVICE); choose another ${keys.port}`
        : code === 'EADDRNOTAVAIL'
          ? `${host} is not an address of this machine: fix ${keys.host}`
          : undefined;
  return hint ? new StartupError(`cannot listen (${where}): ${code}: ${hint}`) : error;
}

/** A host as it stands in a URL: IPv6 addresses in brackets. */
export const hostForUrl = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/** The URL a listener answers on, from the address it bound. */
export const urlOf = (scheme: 'http' | 'https', address: AddressInfo): string => `${scheme}://${hostForUrl(address.address)}:${address.port}`;
