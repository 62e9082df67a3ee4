import { randomFillSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

// An id from a trusted edge (load balancer) is kept so one request can be
// followed across hops; anything odd is replaced, so logs never carry client junk.
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && ACCEPTABLE_ID.test(incoming) ? incoming : randomUuid();
}

/*
 * A random (version 4) UUID, as node's crypto.randomUUID makes one: random
 * bytes drawn in batches of 128 ids from the same source (randomFillSync),
 * the version and variant bits set. What differs is the string: node joins
 * 20 pieces with `+`, which leaves a tree of about 20 string objects (about
 * half a KB) behind every id until something flattens it; here the 36
 * characters are written into one buffer and read out as one string.
 */
const BATCH = 128;
const random = Buffer.alloc(16 * BATCH);
let next = BATCH;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const text = Buffer.alloc(36);

export function randomUuid(): string {
  if (next === BATCH) {
    randomFillSync(random);
    next = 0;
  }
  const offset = 16 * next++;
  let at = 0;
  for (let i = 0; i < 16; i++) {
    let byte = random[offset + i] as number;
    if (i === 6) byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // variant 10
    if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = 0x2d; // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx
    text[at++] = HEX[byte >> 4] as number;
    text[at++] = HEX[byte & 0x0f] as number;
  }
  return text.toString('latin1', 0, 36);
}
