import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { sendJsonText } from '../http/respond.js';
import { ADMIN_LISTENER, listen, urlOf } from '../listeners/listen.js';

/** One path of the admin listener. */
export interface AdminRoute {
  /** Anything else is 405 with an Allow header. */
  readonly methods: readonly string[];
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
}

export interface AdminServer {
  /** e.g. http://127.0.0.1:9901 */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * The operator's listener, apart from client traffic (as Envoy's admin and
 * Kong's Admin API): metrics, probes and the admin API never share a port, a
 * policy or a log line with the API clients call.
 */
export async function startAdminServer(routes: ReadonlyMap<string, AdminRoute>, host: string, port: number, onError: (error: unknown) => void): Promise<AdminServer> {
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
    const url = targetOf(req.url);
    if (!url) return sendError(res, 400, 'the request target must be a path, e.g. /metrics');
    const route = routes.get(url.pathname);
    if (!route) return sendError(res, 404, `no admin endpoint at ${url.pathname}`);
    if (!route.methods.includes(req.method ?? '')) {
      res.setHeader('Allow', route.methods.join(', '));
      return sendError(res, 405, `${req.method} is not allowed here`);
    }
    route.handle(req, res, url).catch((error: unknown) => {
      onError(error);
      try {
        if (!res.headersSent) return sendError(res, 500, 'unexpected failure; see the gateway log');
      } catch {
        // A failure while answering a failure must not become an unhandled rejection, which ends the process.
      }
      res.destroy();
    });
  });
  const address = await listen(server, host, port, ADMIN_LISTENER);
  return {
    url: urlOf('http', address),
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The request target as a URL: origin-form (`/metrics?x`) or absolute-form
 * (`http://host/metrics`). node's parser lets through targets that `new URL`
 * throws on (`http://[`), and a throw here would end the process: undefined
 * instead, answered 400.
 */
function targetOf(target: string | undefined): URL | undefined {
  if (!target || !(target.startsWith('/') || /^https?:\/\//i.test(target))) return undefined;
  try {
    return new URL(target, 'http://admin');
  } catch {
    return undefined;
  }
}

/** Admin errors are for people and scripts: `{"error": "..."}`, not the client-facing envelope. */
export function sendError(res: ServerResponse, status: number, message: string): void {
  sendJsonText(res, status, JSON.stringify({ error: message }), { 'Cache-Control': 'no-store' });
}
