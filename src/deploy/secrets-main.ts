import { ensureSecrets } from './secrets.js';

/**
 * `node dist/deploy/secrets-main.js DIR`: the compose file's one-shot
 * `secrets` service. Prints which files it created or kept, never a value.
 */
const [dir, ...extra] = process.argv.slice(2);
if (dir === undefined || extra.length > 0) {
  process.stderr.write('usage: node dist/deploy/secrets-main.js DIR   (creates DIR/key-encryption-key and DIR/admin-token when absent)\n');
  process.exitCode = 2;
} else {
  try {
    for (const { path, configKey, outcome } of await ensureSecrets(dir)) process.stdout.write(`${outcome} ${path} (${configKey})\n`);
  } catch (error) {
    process.stderr.write(`secrets: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
