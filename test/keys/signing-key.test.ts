import { calculateJwkThumbprint, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { exportSigningKey, generateSigningKey, importSigningKey, type SigningAlgorithm } from '../../src/keys/signing-key.js';

describe('signing keys', () => {
  it.each(['ES256', 'RS256', 'PS256', 'EdDSA'] as SigningAlgorithm[])('%s: kid is the RFC 7638 thumbprint, the public JWK holds public members only', async (alg) => {
    const key = await generateSigningKey(alg, 1_000);
    expect(key.kid).toBe(await calculateJwkThumbprint(key.publicJwk));
    expect(key).toMatchObject({ alg, signsFrom: 1_000 });
    expect(key.publicJwk).toMatchObject({ kid: key.kid, alg, use: 'sig' });
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key.publicJwk).not.toHaveProperty(member);
    expect(Object.isFrozen(key) && Object.isFrozen(key.publicJwk)).toBe(true);
  });

  it('survives export and import: the imported key signs what the original verifies', async () => {
    const key = await generateSigningKey('ES256', 5);
    const portable = await exportSigningKey(key);
    expect(portable.privateJwk).toHaveProperty('d');
    const imported = await importSigningKey(JSON.parse(JSON.stringify(portable)));
    expect({ kid: imported.kid, alg: imported.alg, signsFrom: imported.signsFrom, publicJwk: imported.publicJwk }).toEqual({
      kid: key.kid,
      alg: key.alg,
      signsFrom: 5,
      publicJwk: key.publicJwk,
    });
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: key.kid }).sign(imported.privateKey);
    await expect(jwtVerify(token, key.publicKey)).resolves.toBeDefined();
  });

  it('refuses a stored key whose kid is not its public key\'s thumbprint', async () => {
    const portable = await exportSigningKey(await generateSigningKey('ES256', 0));
    await expect(importSigningKey({ ...portable, publishedAt: 0, kid: 'someone-elses-kid' })).rejects.toThrow('key someone-elses-kid: kid does not match its public key');
  });

  it('drops private members a stored public JWK should not have', async () => {
    const portable = await exportSigningKey(await generateSigningKey('ES256', 0));
    const imported = await importSigningKey({ ...portable, publishedAt: 0, publicJwk: { ...portable.publicJwk, d: portable.privateJwk.d } });
    expect(imported.publicJwk).not.toHaveProperty('d');
  });
});
