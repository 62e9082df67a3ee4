import { describe, expect, it } from 'vitest';
import { MemoryRevocations } from '../../src/store/memory.js';
import type { RevocationKind } from '../../src/store/types.js';
import { isAccessTokenRevoked } from '../../src/tokens/access-token-revocation.js';
import { ManualClock } from '../helpers/clock.js';

const CLAIMS = { jti: 'token-1', sid: 'grant-1' };

describe('tokens/access-token-revocation: is an access token revoked?', () => {
  it.each<[string, Array<[RevocationKind, string]>, boolean]>([
    // [case, what the revocation list holds, revoked]
    ['nothing revoked', [], false],
    ['the token itself (its jti: RFC 7009 on an access token)', [['token', 'token-1']], true],
    ['its grant (its sid: a revoked refresh token, a reuse, the kill switch)', [['grant', 'grant-1']], true],
    ['both', [['token', 'token-1'], ['grant', 'grant-1']], true],
    ['another token of the same grant', [['token', 'token-2']], false],
    ['another grant', [['grant', 'grant-2']], false],
    // The kinds are two name spaces: a grant id revoked as a token id revokes nothing here, and the other way round.
    ['its sid, revoked as a token id', [['token', 'grant-1']], false],
    ['its jti, revoked as a grant id', [['grant', 'token-1']], false],
  ])('%s: %s', async (_case, entries, revoked) => {
    const clock = new ManualClock();
    const list = new MemoryRevocations(clock);
    for (const [kind, id] of entries) await list.add({ kind, id, expiresAt: clock.now() + 60_000 });
    expect(isAccessTokenRevoked(list, CLAIMS)).toBe(revoked);
  });

  it('holds only while the revocation does: an entry past its expiry (every token it covered has expired) revokes nothing', async () => {
    const clock = new ManualClock();
    const list = new MemoryRevocations(clock);
    await list.add({ kind: 'grant', id: 'grant-1', expiresAt: clock.now() + 60_000 });
    clock.advance(59_000);
    expect(isAccessTokenRevoked(list, CLAIMS)).toBe(true);
    clock.advance(1_000);
    expect(isAccessTokenRevoked(list, CLAIMS)).toBe(false);
  });
});
