import { availableParallelism } from 'node:os';
import { Algorithm, hash, verify } from '@node-rs/argon2';

/**
 * Passwords and client secrets are stored only as argon2id PHC strings
 * (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`): the parameters travel inside
 * the string, so raising them later leaves existing hashes verifiable.
 * Defaults are OWASP's first recommendation (19 MiB, 2 passes, 1 lane).
 * Hashing runs on libuv's thread pool and never blocks the event loop.
 */
export const PHC_ARGON2 = /^\$argon2(id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

/**
 * libuv's pool has 4 threads shared with DNS lookups and file I/O; more
 * concurrent hashes than cores only queue there, and a burst of token
 * requests would delay upstream name resolution. They queue here instead,
 * leaving at least one pool thread free.
 */
const MAX_CONCURRENT_HASHES = Math.max(1, Math.min(availableParallelism(), 3));
let running = 0;
const waiting: Array<() => void> = [];

async function withHashSlot<T>(task: () => Promise<T>): Promise<T> {
  if (running < MAX_CONCURRENT_HASHES) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve)); // the finishing task hands its slot over
  try {
    return await task();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

export function hashSecret(secret: string): Promise<string> {
  return withHashSlot(() => hash(secret, { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 }));
}

export async function verifySecret(phcHash: string, secret: string): Promise<boolean> {
  try {
    return await withHashSlot(() => verify(phcHash, secret));
  } catch {
    // A malformed stored hash is a configuration fault (caught by `check`), never a match.
    return false;
  }
}
