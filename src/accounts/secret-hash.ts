import { Algorithm, hash, verify } from '@node-rs/argon2';

/**
 * Passwords and client secrets are stored only as argon2id PHC strings
 * (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`): the parameters travel inside
 * the string, so raising them later leaves existing hashes verifiable.
 * Defaults are OWASP's first recommendation (19 MiB, 2 passes, 1 lane).
 * Hashing runs on libuv's thread pool and never blocks the event loop.
 */
export const PHC_ARGON2 = /^\$argon2(id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

export function hashSecret(secret: string): Promise<string> {
  return hash(secret, { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 });
}

export async function verifySecret(phcHash: string, secret: string): Promise<boolean> {
  try {
    return await verify(phcHash, secret);
  } catch {
    // A malformed stored hash is a configuration fault (caught by `check`), never a match.
    return false;
  }
}
