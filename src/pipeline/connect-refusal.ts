import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { catalogue } from '../errors/catalogue.js';
import type { GatewayContext } from '../context.js';
import { errorEnvelope } from '../http/render-error.js';
import { requestIdOf } from '../http/request-id.js';
import { writeAccessLine } from '../log/access-line.js';
import { ENDPOINTS } from './endpoints.js';
import { pathOf } from './request-handler.js';

const CODE = 'METHOD_NOT_ALLOWED';
/** How long a refused CONNECT's socket may stay open, for the client to read the answer and close first. */
const LINGER_MS = 1_000;

/**
 * A CONNECT request (`CONNECT host:port` or `CONNECT /path`), refused as any method the gateway does not serve:
 * 405 METHOD_NOT_ALLOWED in the JSON envelope, then the connection closed. node does not hand CONNECT to the
 * request listener: it emits `connect` with the bare socket, and destroys the socket, answerless, when nothing
 * listens. So the answer is written here, on the socket, with the access line the pipeline would write (no
 * metrics: those take an exchange, which a CONNECT never opens). `Allow` is sent where the target is one of the
 * gateway's endpoints, whose methods are known; a route's methods are the upstream's, and `host:port` names no
 * resource here. JSON whatever `Accept` says: a tunnelling client is not an API client that negotiates.
 */
export function refuseConnect(ctx: GatewayContext, req: IncomingMessage, socket: Duplex): void {
  const startedAt = process.hrtime.bigint();
  // node took its listeners off the socket before emitting: without one of ours a reset would end the process.
  socket.on('error', () => {});
  const requestId = requestIdOf(req);
  const path = pathOf(req.url);
  const methods = ENDPOINTS.get(path)?.methods;
  const body = JSON.stringify(errorEnvelope(CODE, requestId, false));
  const entry = catalogue[CODE];
  socket.end(
    `HTTP/1.1 ${entry.status} ${entry.errorType}\r\n` +
      `Date: ${new Date().toUTCString()}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      'Cache-Control: no-store\r\n' +
      `X-Request-Id: ${requestId}\r\n` +
      (methods ? `Allow: ${methods.join(', ')}\r\n` : '') +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  // Whatever the client sends after its CONNECT is read and dropped: closing on unread bytes makes the kernel send a
  // reset that can overtake the answer. Bounded, so a client that never closes its side does not hold the socket.
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(linger));
  if (!ctx.logger.isLevelEnabled('info')) return;
  // The fields in the pipeline's order (access-log.ts), so the line, and its object, look like every other.
  writeAccessLine(ctx.logger, {
    requestId,
    method: req.method,
    path,
    route: undefined,
    status: entry.status,
    latencyMs: Math.round(Number(process.hrtime.bigint() - startedAt) / 1e4) / 100,
    clientId: undefined,
    errorCode: CODE,
    policy: undefined,
    detail: 'CONNECT is not served',
  });
}
