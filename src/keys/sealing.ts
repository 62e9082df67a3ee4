import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { StartupError } from '../config/errors.js';
import type { GatewayConfig } from '../config/schema.js';

/** The environment variable holding the key-encryption key (base64 of 32 bytes). */
export const KEK_ENV = 'TOKEN_GATEWAY_KEY_ENCRYPTION_KEY';
const KEK_BYTES = 32;
const IV_BYTES = 12;
const FORMAT = 'v1';

/**
 * The sealer of the key ring's private keys. A shared store (Redis) never
 * holds a private signing key in the clear, so its key-encryption key is
 * mandatory; a StartupError says what is missing (`check` runs this too). The
 * memory store's ring never leaves the process: an ephemeral key does.
 */
export async function keySealerFor(config: GatewayConfig): Promise<KeySealer> {
  if (config.store.kind === 'memory') return KeySealer.ephemeral();
  const kek = await loadKeyEncryptionKey(config.keys.encryption_key_file);
  if (!kek) {
    throw new StartupError(
      `the Redis store keeps the signing keys encrypted: set ${KEK_ENV} to 32 random bytes in base64 ` +
        '(`openssl rand -base64 32`, the same value on every instance of the environment) or name a file holding them in keys.encryption_key_file',
    );
  }
  return new KeySealer(kek, config.environment ?? '');
}

/**
 * The key-encryption key: from `keys.encryption_key_file` when configured,
 * else from TOKEN_GATEWAY_KEY_ENCRYPTION_KEY. Undefined when neither is set;
 * a value that is not 32 bytes of base64 is refused (never echoed).
 */
export async function loadKeyEncryptionKey(file: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<Buffer | undefined> {
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new StartupError(`keys.encryption_key_file: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    return decodeKek(text, `keys.encryption_key_file (${file})`);
  }
  const value = env[KEK_ENV];
  return value === undefined || value.trim() === '' ? undefined : decodeKek(value, KEK_ENV);
}

function decodeKek(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const bytes = Buffer.from(trimmed, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) || bytes.length !== KEK_BYTES) {
    throw new StartupError(`${source} must hold ${KEK_BYTES} random bytes in base64 (e.g. the output of \`openssl rand -base64 32\`)`);
  }
  return bytes;
}

/**
 * AES-256-GCM under the key-encryption key. The additional data binds each
 * sealed value to its environment and key id, so a blob copied to another
 * environment or swapped between keys fails to open instead of being used.
 */
export class KeySealer {
  constructor(
    private readonly kek: Buffer,
    private readonly environment: string,
  ) {}

  /** A sealer under a random key that never leaves the process: for a ring that is never shared. */
  static ephemeral(): KeySealer {
    return new KeySealer(randomBytes(KEK_BYTES), 'local');
  }

  seal(kid: string, plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.kek, iv);
    cipher.setAAD(this.additionalData(kid));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, iv, ciphertext, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /** Throws when the value was sealed under another key, environment or kid, or was altered. */
  open(kid: string, sealed: string): string {
    const [format, iv, ciphertext, tag] = sealed.split('.');
    if (format !== FORMAT || !iv || !ciphertext || !tag) throw new Error('not a sealed key');
    const decipher = createDecipheriv('aes-256-gcm', this.kek, Buffer.from(iv, 'base64url'));
    decipher.setAAD(this.additionalData(kid));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  /**
   * A key for another purpose, derived from the key-encryption key with HKDF
   * (RFC 5869, SHA-256): the same on every instance of the environment, so
   * never stored anywhere, and unrelated to the sealing key and to any other
   * purpose's key. On the memory store the KEK is ephemeral, so is this key.
   */
  deriveKey(purpose: string): KeyObject {
    const info = Buffer.from(`token-gateway:${this.environment}:${purpose}`);
    return createSecretKey(Buffer.from(hkdfSync('sha256', this.kek, Buffer.alloc(0), info, KEK_BYTES)));
  }

  private additionalData(kid: string): Buffer {
    return Buffer.from(`token-gateway:${this.environment}:${kid}`);
  }
}
