import { beforeEach, describe, expect, it } from 'vitest';
import type { GrantFilter, GrantSummary, RefreshGrace, RefreshSuccessor, RefreshTokenRecord, RefreshTokenRef, Store } from '../../src/store/types.js';
import type { ManualClock } from '../helpers/clock.js';

/**
 * The Store contract: every store implementation runs this same suite
 * (memory; Redis on a real redis-server; Redis Cluster on three real masters).
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
    const ref = (hash: string, grantId = 'grant-1'): RefreshTokenRef => ({ grantId, hash });
    const successor = (hash: string, overrides: Partial<RefreshTokenRecord> = {}): RefreshSuccessor => ({ hash, salt: `salt-of-${hash}`, record: record(overrides) });
    /** No grace window: every second use is a replay. */
    const STRICT: RefreshGrace = { windowMs: 0, maxRetries: 5 };
    const GRACE: RefreshGrace = { windowMs: 30_000, maxRetries: 3 };

    beforeEach(async () => {
      clock = newClock();
      store = await create(clock);
      return () => store.close();
    });

    describe('refresh tokens', () => {
      it('finds a saved token and forgets it at expiry', async () => {
        await store.refreshTokens.save(ref('h1'), record());
        expect(await store.refreshTokens.find(ref('h1'))).toMatchObject({ grantId: 'grant-1', clientId: 'app' });
        clock.advance(60_000);
        expect(await store.refreshTokens.find(ref('h1'))).toBeUndefined();
      });

      it('finds a token only under its own grant', async () => {
        await store.refreshTokens.save(ref('h1'), record());
        expect(await store.refreshTokens.find(ref('h1', 'grant-2'))).toBeUndefined();
      });

      it('rotates once: the old token is marked used, with its successor, and the successor saved', async () => {
        await store.refreshTokens.save(ref('h1'), record());
        expect(await store.refreshTokens.rotate(ref('h1'), successor('h2'), clock.now(), STRICT)).toEqual({ kind: 'rotated' });
        expect(await store.refreshTokens.find(ref('h1'))).toMatchObject({ usedAt: clock.now(), successorHash: 'h2', successorSalt: 'salt-of-h2' });
        expect(await store.refreshTokens.find(ref('h2'))).toMatchObject({ clientId: 'app', username: 'alice' });
        expect(await store.refreshTokens.rotate(ref('h1'), successor('h3'), clock.now(), STRICT)).toEqual({ kind: 'reused', reason: 'after_window' });
        expect(await store.refreshTokens.find(ref('h3'))).toBeUndefined();
      });

      it('lets exactly one of many concurrent rotations win, with no grace window', async () => {
        await store.refreshTokens.save(ref('h1'), record());
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.refreshTokens.rotate(ref('h1'), successor(`next-${i}`), clock.now(), STRICT)),
        );
        expect(outcomes.filter((outcome) => outcome.kind === 'rotated')).toHaveLength(1);
        expect(outcomes.filter((outcome) => outcome.kind === 'reused')).toHaveLength(19);
      });

      it('reports an unknown or expired token as missing', async () => {
        expect(await store.refreshTokens.rotate(ref('nope'), successor('h2'), clock.now(), GRACE)).toEqual({ kind: 'missing' });
        await store.refreshTokens.save(ref('h1'), record({ expiresAt: clock.now() + 10 }));
        clock.advance(10);
        expect(await store.refreshTokens.rotate(ref('h1'), successor('h2'), clock.now(), GRACE)).toEqual({ kind: 'missing' });
      });

      it('keeps a used token until its own expiry, so a late replay is still recognised', async () => {
        await store.refreshTokens.save(ref('h1'), record());
        await store.refreshTokens.rotate(ref('h1'), successor('h2', { expiresAt: clock.now() + 120_000 }), clock.now(), GRACE);
        clock.advance(59_999);
        expect(await store.refreshTokens.rotate(ref('h1'), successor('h3'), clock.now(), GRACE)).toEqual({ kind: 'reused', reason: 'after_window' });
      });

      it('removes every token of a grant and no other', async () => {
        await store.refreshTokens.save(ref('h1'), record());
        await store.refreshTokens.rotate(ref('h1'), successor('h2'), clock.now(), GRACE);
        await store.refreshTokens.save(ref('other', 'grant-2'), record({ grantId: 'grant-2' }));
        await store.refreshTokens.removeGrant('grant-1');
        expect(await store.refreshTokens.find(ref('h1'))).toBeUndefined();
        expect(await store.refreshTokens.find(ref('h2'))).toBeUndefined();
        expect(await store.refreshTokens.find(ref('other', 'grant-2'))).toBeDefined();
      });
    });

    describe('refresh tokens presented again within the grace window', () => {
      const rotated = async () => {
        await store.refreshTokens.save(ref('h1'), record());
        expect(await store.refreshTokens.rotate(ref('h1'), successor('h2'), clock.now(), GRACE)).toEqual({ kind: 'rotated' });
      };

      it('names the same successor and its salt, never a second one, and counts each retry', async () => {
        await rotated();
        clock.advance(1_000);
        expect(await store.refreshTokens.rotate(ref('h1'), successor('other'), clock.now(), GRACE)).toEqual({ kind: 'retried', successorHash: 'h2', salt: 'salt-of-h2', retry: 1 });
        expect(await store.refreshTokens.rotate(ref('h1'), successor('other'), clock.now(), GRACE)).toMatchObject({ kind: 'retried', successorHash: 'h2', retry: 2 });
        expect(await store.refreshTokens.find(ref('other'))).toBeUndefined();
        expect((await store.refreshTokens.find(ref('h2')))?.usedAt).toBeUndefined();
        // The successor is the grant's live token: it still rotates, once.
        expect(await store.refreshTokens.rotate(ref('h2'), successor('h3'), clock.now(), GRACE)).toEqual({ kind: 'rotated' });
      });

      it('is a replay once the window is over', async () => {
        await rotated();
        clock.advance(GRACE.windowMs - 1);
        expect(await store.refreshTokens.rotate(ref('h1'), successor('x'), clock.now(), GRACE)).toMatchObject({ kind: 'retried' });
        clock.advance(1);
        expect(await store.refreshTokens.rotate(ref('h1'), successor('x'), clock.now(), GRACE)).toEqual({ kind: 'reused', reason: 'after_window' });
      });

      it('is a replay once the successor itself has been used, however soon', async () => {
        await rotated();
        expect(await store.refreshTokens.rotate(ref('h2'), successor('h3'), clock.now(), GRACE)).toEqual({ kind: 'rotated' });
        expect(await store.refreshTokens.rotate(ref('h1'), successor('x'), clock.now(), GRACE)).toEqual({ kind: 'reused', reason: 'successor_used' });
      });

      it('is a replay once the successor has expired', async () => {
        await store.refreshTokens.save(ref('h1'), record());
        await store.refreshTokens.rotate(ref('h1'), successor('h2', { expiresAt: clock.now() + 500 }), clock.now(), GRACE);
        clock.advance(500);
        expect(await store.refreshTokens.rotate(ref('h1'), successor('x'), clock.now(), GRACE)).toEqual({ kind: 'reused', reason: 'successor_used' });
      });

      it('is a replay past the bounded number of retries', async () => {
        await rotated();
        for (let retry = 1; retry <= GRACE.maxRetries; retry++) {
          expect(await store.refreshTokens.rotate(ref('h1'), successor('x'), clock.now(), GRACE)).toMatchObject({ kind: 'retried', retry });
        }
        expect(await store.refreshTokens.rotate(ref('h1'), successor('x'), clock.now(), GRACE)).toEqual({ kind: 'reused', reason: 'too_many' });
      });

      it('decides many concurrent exchanges of one token atomically: one rotation, bounded retries of it, then replays', async () => {
        await store.refreshTokens.save(ref('h1'), record());
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.refreshTokens.rotate(ref('h1'), successor(`next-${i}`), clock.now(), GRACE)),
        );
        const winner = outcomes.findIndex((outcome) => outcome.kind === 'rotated');
        expect(outcomes.filter((outcome) => outcome.kind === 'rotated')).toHaveLength(1);
        const retries = outcomes.flatMap((outcome) => (outcome.kind === 'retried' ? [outcome] : []));
        expect(retries.map((outcome) => outcome.retry).sort()).toEqual([1, 2, 3]);
        expect(new Set(retries.map((outcome) => outcome.successorHash))).toEqual(new Set([`next-${winner}`]));
        expect(outcomes.filter((outcome) => outcome.kind === 'reused')).toEqual(Array(16).fill({ kind: 'reused', reason: 'too_many' }));
      });

      it('treats a token used before grace windows existed (no successor recorded) as a replay', async () => {
        await store.refreshTokens.save(ref('h1'), record({ usedAt: clock.now() }));
        expect(await store.refreshTokens.rotate(ref('h1'), successor('x'), clock.now(), GRACE)).toEqual({ kind: 'reused', reason: 'after_window' });
      });
    });

    describe('active grants', () => {
      const listed = async (filter: GrantFilter = {}): Promise<GrantSummary[]> => {
        const grants: GrantSummary[] = [];
        for await (const grant of store.refreshTokens.activeGrants(filter)) grants.push(grant);
        return grants.sort((a, b) => a.grantId.localeCompare(b.grantId));
      };
      const login = (grantId: string, username: string, clientId: string) =>
        store.refreshTokens.save(ref(`${grantId}-first`, grantId), record({ grantId, username, clientId, grantIssuedAt: clock.now() }));

      it('summarises a grant: who, which client, since when, last refreshed, until when; never a token hash', async () => {
        const loginAt = clock.now();
        await login('g-1', 'alice', 'app');
        clock.advance(1_000);
        const next = record({ grantId: 'g-1', issuedAt: clock.now(), expiresAt: clock.now() + 60_000, grantIssuedAt: loginAt });
        await store.refreshTokens.rotate(ref('g-1-first', 'g-1'), { hash: 'g-1-second', salt: 's', record: next }, clock.now(), GRACE);
        expect(await listed()).toEqual([
          { grantId: 'g-1', username: 'alice', clientId: 'app', issuedAt: loginAt, lastRefreshedAt: loginAt + 1_000, expiresAt: loginAt + 61_000 },
        ]);
      });

      it('shows a grant never refreshed without a refresh time', async () => {
        await login('g-1', 'alice', 'app');
        expect(await listed()).toEqual([expect.objectContaining({ grantId: 'g-1', issuedAt: clock.now(), lastRefreshedAt: undefined })]);
      });

      it('keeps the login time after the first token has expired and gone', async () => {
        const loginAt = clock.now();
        await login('g-1', 'alice', 'app');
        for (let step = 0; step < 3; step++) {
          clock.advance(40_000);
          const next = record({ grantId: 'g-1', issuedAt: clock.now(), expiresAt: clock.now() + 60_000, grantIssuedAt: loginAt });
          const current = step === 0 ? 'g-1-first' : `g-1-${step}`;
          expect(await store.refreshTokens.rotate(ref(current, 'g-1'), { hash: `g-1-${step + 1}`, salt: 's', record: next }, clock.now(), GRACE)).toEqual({ kind: 'rotated' });
        }
        expect(await listed()).toEqual([expect.objectContaining({ issuedAt: loginAt, lastRefreshedAt: loginAt + 120_000 })]);
      });

      it('filters by username, by client, and by both', async () => {
        await login('g-1', 'alice', 'app');
        await login('g-2', 'alice', 'other-app');
        await login('g-3', 'bob', 'app');
        const ids = (grants: GrantSummary[]) => grants.map((grant) => grant.grantId);
        expect(ids(await listed())).toEqual(['g-1', 'g-2', 'g-3']);
        expect(ids(await listed({ username: 'alice' }))).toEqual(['g-1', 'g-2']);
        expect(ids(await listed({ clientId: 'app' }))).toEqual(['g-1', 'g-3']);
        expect(ids(await listed({ username: 'alice', clientId: 'app' }))).toEqual(['g-1']);
        expect(await listed({ username: 'nobody' })).toEqual([]);
      });

      it('leaves out grants with no unused, unexpired token, and removed grants', async () => {
        await login('expired', 'alice', 'app');
        await store.refreshTokens.save(ref('used', 'used-only'), record({ grantId: 'used-only', usedAt: clock.now() }));
        await login('removed', 'alice', 'app');
        await store.refreshTokens.removeGrant('removed');
        clock.advance(30_000);
        await login('live', 'alice', 'app');
        clock.advance(30_000);
        expect((await listed()).map((grant) => grant.grantId)).toEqual(['live']);
      });

      it('lists every grant exactly once across many batches', async () => {
        const count = 1_234;
        for (let start = 0; start < count; start += 100) {
          await Promise.all(
            Array.from({ length: Math.min(100, count - start) }, (_, i) => login(`many-${String(start + i).padStart(4, '0')}`, `user-${(start + i) % 7}`, 'app')),
          );
        }
        const grants = await listed();
        expect(grants).toHaveLength(count);
        expect(new Set(grants.map((grant) => grant.grantId)).size).toBe(count);
        expect(await listed({ username: 'user-3' })).toHaveLength(grants.filter((grant) => grant.username === 'user-3').length);
      });

      it('can revoke grants while listing them', async () => {
        for (let i = 0; i < 50; i++) await login(`g-${i}`, 'alice', 'app');
        let seen = 0;
        for await (const grant of store.refreshTokens.activeGrants({ username: 'alice' })) {
          seen++;
          await store.refreshTokens.removeGrant(grant.grantId);
        }
        expect(seen).toBe(50);
        expect(await listed()).toEqual([]);
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

    describe('key ring storage', () => {
      it('saves only over the version it was read at (compare-and-set)', async () => {
        expect(await store.keyRing.load()).toBeUndefined();
        expect(await store.keyRing.save({ version: 1, document: 'first' }, 0)).toBe(true);
        expect(await store.keyRing.save({ version: 1, document: 'racing writer' }, 0)).toBe(false);
        expect(await store.keyRing.load()).toEqual({ version: 1, document: 'first' });
        expect(await store.keyRing.save({ version: 2, document: 'second' }, 1)).toBe(true);
        expect(await store.keyRing.load()).toEqual({ version: 2, document: 'second' });
      });

      it('grants and releases the rotation lock', async () => {
        const release = await store.keyRing.tryLock(10_000);
        expect(release).toBeDefined();
        await release?.();
        expect(await store.keyRing.tryLock(10_000)).toBeDefined();
      });
    });

    describe('rate limiters', () => {
      it('counts points and refuses past the limit', async () => {
        const limiter = store.createRateLimiter({ name: `contract-${Date.now()}`, points: 2, durationSeconds: 60 });
        await expect(limiter.consume('client-a')).resolves.toMatchObject({ remainingPoints: 1 });
        await expect(limiter.consume('client-a')).resolves.toMatchObject({ remainingPoints: 0 });
        await expect(limiter.consume('client-a')).rejects.toMatchObject({ remainingPoints: 0 });
        await expect(limiter.consume('client-b')).resolves.toMatchObject({ remainingPoints: 1 });
      });
    });

    describe('window counters', () => {
      it('admits points per key within a window, each key on its own, and starts afresh in the next window', async () => {
        const counter = store.createWindowCounter({ name: `contract-window-${Date.now()}`, points: 2, durationSeconds: 1 });
        const admit = async (key: string, window: string) => counter.admit(key, window);
        expect([await admit('a', '7.1'), await admit('a', '7.1'), await admit('a', '7.1')]).toEqual([true, true, false]);
        expect(await admit('b', '7.1')).toBe(true);
        expect([await admit('a', '7.2'), await admit('a', '7.2'), await admit('a', '7.2')]).toEqual([true, true, false]);
      });
    });

    it('reports itself ready', () => {
      expect(store.health()).toEqual({ ready: true });
    });
  });
}
