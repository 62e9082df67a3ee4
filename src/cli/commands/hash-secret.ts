import { hashSecret } from '../../accounts/secret-hash.js';
import { EXIT, type CommandIo } from '../io.js';
import { readSecret, SecretEntryCancelled } from '../read-secret.js';

export const HASH_SECRET_USAGE = `usage: token-gateway hash-secret < secret.txt
  Reads one secret from standard input (the trailing newline is not part of it)
  and prints its argon2id PHC hash, for password_hash or client_secret_hash in accounts.yaml.`;

/** Prints only the hash on stdout, so `token-gateway hash-secret < file` composes in scripts. */
export async function hashSecretCommand(io: CommandIo): Promise<number> {
  let secret: string;
  try {
    secret = await readSecret(io, 'Secret');
  } catch (error) {
    if (!(error instanceof SecretEntryCancelled)) throw error;
    io.stderr.write('token-gateway hash-secret: cancelled\n');
    return EXIT.invalid;
  }
  if (secret === '') {
    io.stderr.write('token-gateway hash-secret: the secret is empty\n');
    return EXIT.invalid;
  }
  io.stdout.write(`${await hashSecret(secret)}\n`);
  return EXIT.ok;
}
