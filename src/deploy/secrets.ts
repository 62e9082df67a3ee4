import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One secret the container deployment needs, named as docker/config/gateway.yaml refers to it. */
export interface DeploySecret {
  /** File name inside the secrets folder. */
  readonly file: string;
  /** The gateway.yaml key that names the file, for the messages. */
  readonly configKey: string;
  generate(): string;
}

/**
 * The key-encryption key (32 random bytes in base64, as `openssl rand -base64
 * 32` prints) and the admin API token (256 random bits, base64url so that it
 * pastes into a header as is).
 */
export const DEPLOY_SECRETS: readonly DeploySecret[] = [
  { file: 'key-encryption-key', configKey: 'keys.encryption_key_file', generate: () => randomBytes(32).toString('base64') },
  { file: 'admin-token', configKey: 'admin.token_file', generate: () => randomBytes(32).toString('base64url') },
];

export interface SecretOutcome {
  readonly path: string;
  readonly configKey: string;
  readonly outcome: 'created' | 'kept';
}

/**
 * Creates each secret that is absent and never touches one that exists: a
 * new key-encryption key would leave every signing key sealed in Redis
 * unreadable. `wx` makes "only if absent" one atomic step, so two runs at
 * once cannot both write. Files are readable by their owner only.
 */
export async function ensureSecrets(dir: string, secrets: readonly DeploySecret[] = DEPLOY_SECRETS): Promise<SecretOutcome[]> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const outcomes: SecretOutcome[] = [];
  for (const secret of secrets) {
    const path = join(dir, secret.file);
    const outcome = await writeIfAbsent(path, `${secret.generate()}\n`);
    outcomes.push({ path, configKey: secret.configKey, outcome });
  }
  return outcomes;
}

async function writeIfAbsent(path: string, content: string): Promise<'created' | 'kept'> {
  try {
    await writeFile(path, content, { flag: 'wx', mode: 0o400 });
    return 'created';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'kept';
    throw error;
  }
}
