import { describe, expect, it } from 'vitest';
import { hashSecret, PHC_ARGON2, verifySecret } from '../../src/accounts/secret-hash.js';

describe('secret hashing (argon2id PHC strings)', () => {
  it("hashes with argon2id at OWASP's first parameters (19 MiB, 2 passes, 1 lane), salted", async () => {
    const [a, b] = await Promise.all([hashSecret('correct horse'), hashSecret('correct horse')]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(a).toMatch(PHC_ARGON2);
    expect(a).not.toBe(b);
  });

  it('verifies the secret and nothing else', async () => {
    const hash = await hashSecret('correct horse');
    expect(await verifySecret(hash, 'correct horse')).toBe(true);
    expect(await verifySecret(hash, 'correct horse ')).toBe(false);
    expect(await verifySecret(hash, '')).toBe(false);
  });

  it('treats a malformed stored hash as no match, never as an error', async () => {
    expect(await verifySecret('$argon2id$v=19$m=19456,t=2,p=1$bm90$YmFk', 'x')).toBe(false);
    expect(await verifySecret('plain-text-password', 'plain-text-password')).toBe(false);
  });

  it.each([
    ['$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g', true],
    ['$argon2i$v=19$m=4096,t=3,p=1$c2FsdHNhbHQ$aGFzaGhhc2g', true],
    ['$argon2d$v=19$m=4096,t=3,p=1$c2FsdHNhbHQ$aGFzaGhhc2g', true],
    // Below argon2's minimums (an 8-byte salt, a 4-byte hash): it could never verify.
    ['$argon2i$v=19$m=19456,t=2,p=1$abc$def', false],
    ['$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaGhhc2g', false],
    ['$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFz', false],
    ['$2b$10$abcdefghijklmnopqrstuv', false],
    ['argon2id$v=19$m=1,t=1,p=1$a$b', false],
    ['', false],
  ])('PHC_ARGON2 on %j: %s', (text, matches) => {
    expect(PHC_ARGON2.test(text)).toBe(matches);
  });
});
