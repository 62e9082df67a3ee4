import { createServer, type Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { GatewayConfig } from '../config/schema.js';
import { CLIENT_LISTENER, listen, TLS_LISTENER, urlOf } from './listen.js';
import { serverOptionsOf } from './server-limits.js';
import { createTlsServer, type TlsCredentials } from './tls-listener.js';

/** Where the clients reach the gateway: plain HTTP, and HTTPS beside it when `tls` is configured. */
export interface ClientListeners {
  readonly server: Server;
  readonly https: HttpsServer | undefined;
  /** Both, for what applies to every client listener (limits, drain, the request handler). */
  readonly all: readonly Server[];
  readonly url: string;
  readonly httpsUrl: string | undefined;
  /** The plain listener's port (the default issuer names it). */
  readonly port: number;
}

/**
 * Binds the client listeners, with no request handler yet (the generation
 * attaches it): a port that is taken fails the start here, naming the keys.
 * `bound` is told of each listener as it binds, so a failure on the second
 * still closes the first.
 */
export async function openClientListeners(config: GatewayConfig, tls: TlsCredentials | undefined, bound: (server: Server) => void): Promise<ClientListeners> {
  const server = createServer(serverOptionsOf(config.limits));
  const address = await listen(server, config.listen.host, config.listen.port, CLIENT_LISTENER);
  bound(server);
  // HTTPS beside plain HTTP, with the same handler and limits; plain stays for local use behind a TLS-terminating balancer.
  const https = tls && config.tls ? createTlsServer(tls, config.limits) : undefined;
  let httpsUrl: string | undefined;
  if (https && config.tls) {
    httpsUrl = urlOf('https', await listen(https, config.tls.host ?? config.listen.host, config.tls.port, TLS_LISTENER));
    bound(https);
  }
  return { server, https, all: https ? [server, https] : [server], url: urlOf('http', address), httpsUrl, port: address.port };
}
