import { beforeEach, describe, expect, it } from 'vitest';
import type { RefreshTokenRecord, Store } from '../../src/store/types.js';
import type { ManualClock } from '../helpers/clock.js';

/**
 * The Store contract: every store implementation runs this same suite
 * (memory now; Redis with real redis-server processes when it arrives).
 */
export function storeContract(name: string, create: (clock: ManualClock) => Promise<Store>, newClock: () => ManualClock): void {
  describe(`${name} store contract`, () => {
    let clock: ManualClock;
    let store: Store;
    const record = (overrides: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord => ({
      grantId: 'grant-1',
      clientId: 'app',
      username: 'alice',
      issuedAt: clock.now(),
      expiresAt: clock.now() + 60_000,
      ...overrides,
    });

    beforeEach(async () => {
      clock = newClock();
      store = await create(clock);
      return () => store.close();
    });

    describe('refresh tokens', () => {
      it('finds a saved token and forgets it at expiry', async () => {
        await store.refreshTokens.save('h1', record());
        expect(await store.refreshTokens.find('h1')).toMatchObject({ grantId: 'grant-1', clientId: 'app' });
        clock.advance(60_000);
        expect(await store.refreshTokens.find('h1')).toBeUndefined();
      });

      it('rotates once: the old token is marked used and the successor saved', async () => {
        await store.refreshTokens.save('h1', record());
        expect(await store.refreshTokens.rotate('h1', 'h2', record(), clock.now())).toEqual({ kind: 'rotated' });
        expect((await store.refreshTokens.find('h1'))?.usedAt).toBe(clock.now());
        expect(await store.refreshTokens.find('h2')).toBeDefined();
        expect(await store.refreshTokens.rotate('h1', 'h3', record(), clock.now())).toEqual({ kind: 'reused' });
        expect(await store.refreshTokens.find('h3')).toBeUndefined();
      });

      it('lets exactly one of many concurrent rotations win', async () => {
        await store.refreshTokens.save('h1', record());
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.refreshTokens.rotate('h1', `next-${i}`, record(), clock.now())),
        );
        expect(outcomes.filter((outcome) => outcome.kind === 'rotated')).toHaveLength(1);
        expect(outcomes.filter((outcome) => outcome.kind === 'reused')).toHaveLength(19);
      });

      it('reports an unknown or expired token as missing', async () => {
        expect(await store.refreshTokens.rotate('nope', 'h2', record(), clock.now())).toEqual({ kind: 'missing' });
        await store.refreshTokens.save('h1', record({ expiresAt: clock.now() + 10 }));
        clock.advance(10);
        expect(await store.refreshTokens.rotate('h1', 'h2', record(), clock.now())).toEqual({ kind: 'missing' });
      });

      it('removes every token of a grant and no other', async () => {
        await store.refreshTokens.save('h1', record());
        await store.refreshTokens.rotate('h1', 'h2', record(), clock.now());
        await store.refreshTokens.save('other', record({ grantId: 'grant-2' }));
        await store.refreshTokens.removeGrant('grant-1');
        expect(await store.refreshTokens.find('h1')).toBeUndefined();
        expect(await store.refreshTokens.find('h2')).toBeUndefined();
        expect(await store.refreshTokens.find('other')).toBeDefined();
      });
    });

    describe('revocation list', () => {
      it('answers revoked until the entry expires, per kind', async () => {
        await store.revocations.add({ kind: 'token', id: 'jti-1', expiresAt: clock.now() + 1_000 });
        expect(store.revocations.isRevoked('token', 'jti-1')).toBe(true);
        expect(store.revocations.isRevoked('grant', 'jti-1')).toBe(false);
        expect(store.revocations.isRevoked('token', 'jti-2')).toBe(false);
        clock.advance(1_000);
        expect(store.revocations.isRevoked('token', 'jti-1')).toBe(false);
      });

      it('never shortens a revocation', async () => {
        await store.revocations.add({ kind: 'grant', id: 'g', expiresAt: clock.now() + 5_000 });
        await store.revocations.add({ kind: 'grant', id: 'g', expiresAt: clock.now() + 1_000 });
        clock.advance(2_000);
        expect(store.revocations.isRevoked('grant', 'g')).toBe(true);
      });
    });
  });
}
