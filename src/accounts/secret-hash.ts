import { availableParallelism } from 'node:os';
import { isGatewayError } from '../errors/gateway-error.js';
import { HashPool } from './hash-pool.js';

/**
 * Passwords and client secrets are stored only as argon2id PHC strings
 * (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`): the parameters travel inside
 * the string, so raising them later leaves existing hashes verifiable.
 * Defaults are OWASP's first recommendation (19 MiB, 2 passes, 1 lane).
 */
// Argon2's own minimums, in unpadded base64: a salt of 8 bytes (11 characters) and a hash of 4 (6). A shorter one
// can never verify, so an account holding it could never log in: refused at load instead, with the file and line.
export const PHC_ARGON2 = /^\$argon2(id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]{11,}\$[A-Za-z0-9+/]{6,}$/;

const ARGON2ID_DEFAULTS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/**
 * One hashing thread per core the process may run on (taskset and cgroup
 * limits count), at most 4: more threads than cores only queue in the
 * kernel instead of here. Nice 10 leaves the event loop ~90% of a core it
 * shares with hashing (kernel weights 1024 vs 110); measured in
 * bench/results (token-endpoint). 100 waiting jobs per thread is about
 * 1.5 s of hashing: anything beyond that is refused with 503.
 */
const threads = Math.max(1, Math.min(availableParallelism(), 4));
const pool = new HashPool({ threads, maxWaiting: 100 * threads, niceness: 10 });

export async function hashSecret(secret: string): Promise<string> {
  return (await pool.run({ op: 'hash', secret, options: ARGON2ID_DEFAULTS })) as string;
}

/** False for a wrong secret and for a malformed stored hash; 503 when hashing is saturated. */
export async function verifySecret(phcHash: string, secret: string): Promise<boolean> {
  try {
    return (await pool.run({ op: 'verify', hash: phcHash, secret })) === true;
  } catch (error) {
    if (isGatewayError(error)) throw error;
    // A malformed stored hash is a configuration fault (caught by `check`), never a match.
    return false;
  }
}
