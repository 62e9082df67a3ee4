import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEK_ENV, KeySealer, loadKeyEncryptionKey } from '../../src/keys/sealing.js';

const kek = randomBytes(32);

describe('sealing private keys (AES-256-GCM)', () => {
  it('opens what it sealed, and nothing else', () => {
    const sealer = new KeySealer(kek, 'production');
    const sealed = sealer.seal('kid-1', '{"d":"secret"}');
    expect(sealed).not.toContain('secret');
    expect(sealer.open('kid-1', sealed)).toBe('{"d":"secret"}');
    expect(() => sealer.open('kid-2', sealed)).toThrow();
    expect(() => new KeySealer(kek, 'sandbox').open('kid-1', sealed)).toThrow();
    expect(() => new KeySealer(randomBytes(32), 'production').open('kid-1', sealed)).toThrow();
    const [format, iv, ciphertext, tag] = sealed.split('.');
    const flipped = Buffer.from(ciphertext!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => sealer.open('kid-1', [format, iv, flipped.toString('base64url'), tag].join('.'))).toThrow();
  });

  it('seals the same value differently each time (fresh IV)', () => {
    const sealer = new KeySealer(kek, 'production');
    expect(sealer.seal('k', 'x')).not.toBe(sealer.seal('k', 'x'));
  });
});

describe('keys derived from the key-encryption key (HKDF)', () => {
  const bytes = (sealer: KeySealer, purpose: string) => sealer.deriveKey(purpose).export().toString('hex');

  it('derives the same key on every instance of an environment, and another one per purpose and per environment', () => {
    const key = bytes(new KeySealer(kek, 'production'), 'refresh-successor');
    expect(key).toHaveLength(64);
    expect(bytes(new KeySealer(Buffer.from(kek), 'production'), 'refresh-successor')).toBe(key);
    expect(bytes(new KeySealer(kek, 'production'), 'other')).not.toBe(key);
    expect(bytes(new KeySealer(kek, 'sandbox'), 'refresh-successor')).not.toBe(key);
    expect(bytes(new KeySealer(randomBytes(32), 'production'), 'refresh-successor')).not.toBe(key);
  });

  it('is neither the KEK nor shown when logged', () => {
    const key = new KeySealer(kek, 'production').deriveKey('refresh-successor');
    expect(key.export().equals(kek)).toBe(false);
    expect(JSON.stringify(key)).not.toContain(key.export().toString('base64'));
  });

  it('is random per process on an ephemeral sealer (the memory store)', () => {
    expect(bytes(KeySealer.ephemeral(), 'refresh-successor')).not.toBe(bytes(KeySealer.ephemeral(), 'refresh-successor'));
  });
});

describe('loading the key-encryption key', () => {
  it('reads the environment variable, and the file when one is configured', async () => {
    expect(await loadKeyEncryptionKey(undefined, { [KEK_ENV]: kek.toString('base64') })).toEqual(kek);
    expect(await loadKeyEncryptionKey(undefined, {})).toBeUndefined();
    const file = join(await mkdtemp(join(tmpdir(), 'tg-kek-')), 'kek');
    await writeFile(file, `${kek.toString('base64')}\n`);
    expect(await loadKeyEncryptionKey(file, { [KEK_ENV]: randomBytes(32).toString('base64') })).toEqual(kek);
  });

  it.each([
    ['too short', randomBytes(16).toString('base64')],
    ['not base64', 'this is not base64 at all, it has spaces and punctuation!'],
  ])('refuses a key that is %s, without echoing it', async (_case, value) => {
    const failure = await loadKeyEncryptionKey(undefined, { [KEK_ENV]: value }).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain('32 random bytes in base64');
    expect((failure as Error).message).not.toContain(value);
  });

  it('names a file it cannot read', async () => {
    await expect(loadKeyEncryptionKey('/nonexistent/kek')).rejects.toThrow('keys.encryption_key_file: cannot read /nonexistent/kek: ENOENT');
  });
});
