import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintRefreshToken, newGrantId, signTokenPair } from '../../src/oauth/token-pair.js';
import { hashRefreshToken } from '../../src/tokens/refresh-token-value.js';
import { ManualClock } from '../helpers/clock.js';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';

describe('a token pair', () => {
  const clock = new ManualClock();
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway({ clock, config: { tokens: { access_ttl: '10m', refresh_ttl: '1h' } } });
  });
  afterAll(() => tg.close());

  it('mints a refresh token living refresh_ttl from its own issue, remembering when the login happened', () => {
    const ctx = tg.gateway.context;
    const subject = { username: 'alice', clientId: 'portal', grantId: newGrantId() };
    const login = clock.now() - 5_000;
    const minted = mintRefreshToken(ctx, subject, clock.now(), login);
    expect(minted.value.startsWith(`${subject.grantId}.`)).toBe(true);
    expect(minted.ref).toEqual({ grantId: subject.grantId, hash: hashRefreshToken(minted.value) });
    expect(minted.record).toEqual({ grantId: subject.grantId, clientId: 'portal', username: 'alice', issuedAt: clock.now(), expiresAt: clock.now() + 3_600_000, grantIssuedAt: login });
    expect(mintRefreshToken(ctx, subject, clock.now()).record.grantIssuedAt).toBe(clock.now());
  });

  it('signs the access token for the same grant, issued now, with the configured lifetime', async () => {
    const ctx = tg.gateway.context;
    const subject = { username: 'alice', clientId: 'portal', grantId: newGrantId() };
    const refresh = mintRefreshToken(ctx, subject, clock.now());
    const pair = await signTokenPair(ctx, subject, refresh, clock.now());
    expect(pair).toMatchObject({ refreshToken: refresh.value, issuedAt: clock.now(), expiresInSeconds: 600 });
    expect(decodeJwt(pair.accessToken)).toMatchObject({ sub: 'alice', client_id: 'portal', sid: subject.grantId });
  });
});
