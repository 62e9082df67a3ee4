import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { KeyRingKeeper } from '../../src/keys/keeper.js';
import { KeyRing } from '../../src/keys/key-ring.js';
import { KeySealer } from '../../src/keys/sealing.js';
import type { SigningAlgorithm } from '../../src/keys/signing-key.js';
import { AccessTokens } from '../../src/tokens/access-token.js';
import { MemoryStore } from '../../src/store/memory.js';
import { ManualClock } from '../helpers/clock.js';

const HOUR = 3_600_000;
const keepers = new WeakMap<KeyRing, KeyRingKeeper>();

/** A ring kept as a single gateway keeps it: a keeper on the memory store. */
async function ring(clock: ManualClock, algorithm: SigningAlgorithm = 'ES256') {
  const keyRing = new KeyRing({ algorithm, rotationIntervalMs: 24 * HOUR, retentionMs: HOUR, clock });
  const storage = new MemoryStore(clock).keyRing;
  const keeper = new KeyRingKeeper({ ring: keyRing, storage, sealer: KeySealer.ephemeral(), logger: pino({ level: 'silent' }), clock });
  await keeper.sync();
  keepers.set(keyRing, keeper);
  return keyRing;
}

const maintain = (keyRing: KeyRing): Promise<boolean> => keepers.get(keyRing)!.maintain();

const kids = (keyRing: KeyRing) => keyRing.jwks().keys.map((key) => key.kid);

describe('key ring', () => {
  it('publishes the next key before it signs anything', async () => {
    const clock = new ManualClock();
    const keyRing = await ring(clock);
    const [current, next] = kids(keyRing);
    expect(keyRing.selectSigningKey().kid).toBe(current);
    expect(next).toBeDefined();
    expect(next).not.toBe(current);
  });

  it('rotates on schedule: the published next key signs, the old one stays published for the retention period', async () => {
    const clock = new ManualClock();
    const keyRing = await ring(clock);
    const [first, second] = kids(keyRing);
    clock.advance(24 * HOUR - 1);
    expect(await maintain(keyRing)).toBe(false);
    clock.advance(1);
    expect(await maintain(keyRing)).toBe(true);
    expect(keyRing.selectSigningKey().kid).toBe(second);
    expect(kids(keyRing)).toContain(first);
    expect(kids(keyRing)).toHaveLength(3);
    clock.advance(HOUR);
    await maintain(keyRing);
    expect(kids(keyRing)).not.toContain(first);
    expect(kids(keyRing)).toHaveLength(2);
  });

  it('tells when it is next due: the next activation or an earlier retirement', async () => {
    const clock = new ManualClock();
    const keyRing = await ring(clock);
    expect(keyRing.nextDueAt()).toBe(clock.now() + 24 * HOUR);
    clock.advance(24 * HOUR);
    await maintain(keyRing);
    expect(keyRing.nextDueAt()).toBe(clock.now() + HOUR);
  });

  it('restarts the schedule from now after sleeping through several intervals', async () => {
    const clock = new ManualClock();
    const keyRing = await ring(clock);
    const [first, second] = kids(keyRing);
    clock.advance(100 * HOUR);
    // The second key took over by the clock at 24 h, without waiting for maintenance.
    expect(keyRing.selectSigningKey().kid).toBe(second);
    await maintain(keyRing);
    expect(kids(keyRing)).not.toContain(first);
    expect(keyRing.nextDueAt()).toBe(clock.now() + 24 * HOUR);
    clock.advance(24 * HOUR);
    await maintain(keyRing);
    expect(keyRing.selectSigningKey().kid).not.toBe(second);
    expect(keyRing.nextDueAt()).toBe(clock.now() + HOUR);
  });

  it('switches the signing key by the clock alone, so instances sharing a ring switch together', async () => {
    const clock = new ManualClock();
    const keyRing = await ring(clock);
    const [first, second] = kids(keyRing);
    clock.advance(24 * HOUR - 1);
    expect(keyRing.selectSigningKey().kid).toBe(first);
    clock.advance(1);
    expect(keyRing.selectSigningKey().kid).toBe(second);
  });

  it('is unavailable, not broken, until keys are loaded', () => {
    const empty = new KeyRing({ algorithm: 'ES256', rotationIntervalMs: HOUR, retentionMs: HOUR, clock: new ManualClock() });
    expect(empty.loaded).toBe(false);
    expect(() => empty.selectSigningKey()).toThrow(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }));
    expect(empty.jwks()).toEqual({ keys: [] });
  });

  it('publishes kid, alg and use: sig, and never a private member', async () => {
    const keyRing = await ring(new ManualClock(), 'RS256');
    for (const jwk of keyRing.jwks().keys) {
      expect(jwk).toMatchObject({ alg: 'RS256', use: 'sig', kty: 'RSA' });
      expect(jwk.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(jwk).not.toHaveProperty(member);
    }
  });

  it('selects a verification key only for a published kid with the ring algorithm', async () => {
    const keyRing = await ring(new ManualClock());
    const { kid } = keyRing.selectSigningKey();
    expect(keyRing.selectVerificationKey({ kid, alg: 'ES256' })).toBeDefined();
    expect(keyRing.selectVerificationKey({ kid, alg: 'HS256' })).toBeUndefined();
    expect(keyRing.selectVerificationKey({ alg: 'ES256' })).toBeUndefined();
    expect(keyRing.selectVerificationKey({ kid: 'unknown', alg: 'ES256' })).toBeUndefined();
  });

  it.each(['ES256', 'RS256', 'PS256', 'EdDSA'] as const)('signs and verifies %s access tokens', async (algorithm) => {
    const clock = new ManualClock();
    const keyRing = await ring(clock, algorithm);
    const tokens = new AccessTokens({ ring: keyRing, issuer: 'http://gw', acceptedIssuers: ['http://gw'], audience: 'http://gw', acceptedAudiences: ['http://gw'], ttlMs: 1_800_000, leewayMs: 5_000, clock });
    const { token, claims } = await tokens.issue({ username: 'alice', clientId: 'app', grantId: 'g' }, clock.now());
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: algorithm, typ: 'at+jwt' });
    await expect(tokens.verify(token)).resolves.toMatchObject({ sub: 'alice', client_id: 'app', jti: claims.jti, exp: claims.iat + 1800 });
  });
});

describe('access token clock leeway', () => {
  it('honours a leeway that is not a whole number of seconds', async () => {
    const clock = new ManualClock();
    const keyRing = await ring(clock);
    const tokens = new AccessTokens({ ring: keyRing, issuer: 'http://gw', acceptedIssuers: ['http://gw'], audience: 'http://gw', acceptedAudiences: ['http://gw'], ttlMs: 60_000, leewayMs: 1_500, clock });
    const { token } = await tokens.issue({ username: 'alice', clientId: 'app', grantId: 'g' }, clock.now());
    clock.advance(61_000);
    await expect(tokens.verify(token)).resolves.toMatchObject({ sub: 'alice' });
    clock.advance(1_000);
    await expect(tokens.verify(token)).rejects.toMatchObject({ code: 'ACCESS_TOKEN_INVALID', detail: 'ERR_JWT_EXPIRED' });
  });
});
