import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

// An id from a trusted edge (load balancer) is kept so one request can be
// followed across hops; anything odd is replaced, so logs never carry client junk.
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
}
