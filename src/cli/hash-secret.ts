import { hashSecret } from '../accounts/secret-hash.js';
import { EXIT, type CommandIo } from './io.js';

export const HASH_SECRET_USAGE = `usage: token-gateway hash-secret < secret.txt
  Reads one secret from standard input (the trailing newline is not part of it)
  and prints its argon2id PHC hash, for password_hash or client_secret_hash in accounts.yaml.`;

/** Prints only the hash on stdout, so `token-gateway hash-secret < file` composes in scripts. */
export async function hashSecretCommand(io: CommandIo): Promise<number> {
  if (io.stdin.isTTY) io.stderr.write('Secret (input is echoed; pipe it in to keep it off the screen): ');
  const secret = stripOneNewline(await readAll(io.stdin));
  if (secret === '') {
    io.stderr.write('token-gateway hash-secret: the secret is empty\n');
    return EXIT.invalid;
  }
  io.stdout.write(`${await hashSecret(secret)}\n`);
  return EXIT.ok;
}

/** From a terminal, one line; from a pipe, everything. */
async function readAll(stdin: CommandIo['stdin']): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += chunk.toString();
    if (stdin.isTTY && text.includes('\n')) break;
  }
  return stdin.isTTY ? text.slice(0, text.indexOf('\n') + 1 || undefined) : text;
}

const stripOneNewline = (text: string): string => text.replace(/\r?\n$/, '');
