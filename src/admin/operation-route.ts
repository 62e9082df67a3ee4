import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { sendJsonText } from '../http/respond.js';
import type { AdminAccess } from './access.js';
import type { AdminOperation, OperationRunner } from './operation.js';
import { sendError, type AdminRoute } from './server.js';

const MAX_INPUT_BYTES = 64 * 1024;
/** As the token endpoints say during a Redis outage: a reconnect is a matter of a second or so. */
const RETRY_AFTER_S = 1;

/**
 * The HTTP face of an operation. Access rule: with admin.token_file set,
 * every operation needs `Authorization: Bearer <token>`; without it, only
 * a listener on loopback serves operations (as Kong's Admin API on
 * 127.0.0.1), and one exposed to the network refuses them, saying why.
 */
export function operationRoute(operation: AdminOperation, access: AdminAccess, runner: OperationRunner): AdminRoute {
  return {
    methods: [operation.method],
    async handle(req, res, url) {
      const refusal = accessRefusal(req, access);
      if (refusal) return sendError(res, refusal.status, refusal.message);
      let input: Record<string, unknown>;
      try {
        input = operation.method === 'GET' ? queryOf(url) : await readJsonObject(req);
      } catch (error) {
        return sendError(res, 400, (error as Error).message);
      }
      const result = await runner(operation, input);
      // A 503 is the store (or, with workers, every worker) unable to do it now: the same hint the token endpoints give.
      const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
      if (result.status === 503) headers['Retry-After'] = String(RETRY_AFTER_S);
      sendJsonText(res, result.status, JSON.stringify(result.body), headers);
    },
  };
}

/** Why the access rule refuses this request, or undefined when it may go on; the operations page applies it too. */
export function accessRefusal(req: IncomingMessage, access: AdminAccess): { status: number; message: string } | undefined {
  if (access.token === undefined) {
    if (!access.loopback) return { status: 403, message: 'the admin API is off on a listener reachable from the network until admin.token_file is set' };
    // Without a token, being on loopback is the whole access rule. A web page the operator's browser has open could
    // reach it through DNS rebinding (its own name resolving to 127.0.0.1); the browser then sends that name as Host.
    if (!namesLoopback(req.headers.host)) {
      return { status: 403, message: 'without admin.token_file, the admin API answers only requests addressed to a loopback name (localhost, 127.0.0.1, [::1])' };
    }
    return undefined;
  }
  const presented = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (presented === undefined || !sameSecret(presented, access.token)) return { status: 401, message: 'admin token missing or wrong' };
  return undefined;
}

/** True for `localhost`, `127.x.y.z` or `[::1]`, with or without a port; a request without Host (HTTP/1.0 tools) too. */
function namesLoopback(host: string | undefined): boolean {
  if (host === undefined) return true;
  const name = (host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, '')).toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** Compares digests, so neither the length nor the content of the token leaks through timing. */
function sameSecret(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * A GET's query as its input. A parameter given twice is refused rather than
 * resolved: `username=alice&username=bob` listing one of them would answer a
 * question the caller did not ask.
 */
function queryOf(url: URL): Record<string, unknown> {
  const input = new Map<string, string>();
  for (const [name, value] of url.searchParams) {
    if (input.has(name)) throw new Error(`query parameter "${name}" given more than once; give each parameter once`);
    input.set(name, value);
  }
  return Object.fromEntries(input);
}

async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_INPUT_BYTES) throw new Error(`request body over ${MAX_INPUT_BYTES} bytes`);
    chunks.push(chunk);
  }
  if (size === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new Error('request body is not JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('request body must be a JSON object');
  return parsed as Record<string, unknown>;
}
