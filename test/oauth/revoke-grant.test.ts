import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeGrant } from '../../src/oauth/revoke-grant.js';
import { mintRefreshToken, newGrantId } from '../../src/oauth/token-pair.js';
import { ManualClock } from '../helpers/clock.js';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';
import { scrape } from '../helpers/metrics.js';

describe('ending a grant', () => {
  const clock = new ManualClock();
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway({ clock, config: { tokens: { access_ttl: '10m', refresh_ttl: '1h', clock_leeway: '5s' } } });
  });
  afterAll(() => tg.close());

  it('refuses everything issued from it until the last of it would have expired, and forgets its refresh tokens', async () => {
    const ctx = tg.gateway.context;
    const subject = { username: 'alice', clientId: 'portal', grantId: newGrantId() };
    const refresh = mintRefreshToken(ctx, subject, clock.now());
    await ctx.store.refreshTokens.save(refresh.ref, refresh.record);
    await revokeGrant(ctx, subject.grantId, 'kill_switch');
    expect(await ctx.store.refreshTokens.find(refresh.ref)).toBeUndefined();
    expect(ctx.store.revocations.isRevoked('grant', subject.grantId)).toBe(true);
    // Counted under the reason its caller gave, whoever that was.
    expect((await scrape(tg.gateway.adminUrl!)).value('token_gateway_tokens_revoked_total', { token_type: 'refresh_token', reason: 'kill_switch' })).toBe(1);
    clock.advance(3_600_000 + 5_000 - 1_000); // the longest lifetime (refresh) plus the leeway
    expect(ctx.store.revocations.isRevoked('grant', subject.grantId)).toBe(true);
    clock.advance(1_000);
    expect(ctx.store.revocations.isRevoked('grant', subject.grantId)).toBe(false);
  });
});
