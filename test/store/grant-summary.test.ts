import { describe, expect, it } from 'vitest';
import { summariseGrant } from '../../src/store/grant-summary.js';
import type { RefreshTokenRecord } from '../../src/store/types.js';

const NOW = 1_000_000;
const record = (over: Partial<RefreshTokenRecord>): RefreshTokenRecord => ({ grantId: 'g', clientId: 'portal', username: 'alice', issuedAt: NOW - 100, expiresAt: NOW + 100, ...over });

describe("a grant as the admin API shows it (one function for both stores)", () => {
  it('is who, which client, since when, until when; a grant never refreshed has no refresh time', () => {
    expect(summariseGrant([record({})], NOW, {})).toEqual({ grantId: 'g', username: 'alice', clientId: 'portal', issuedAt: NOW - 100, lastRefreshedAt: undefined, expiresAt: NOW + 100 });
  });

  it('dates the login from the first token, the last refresh from the newest, the end from the live one', () => {
    const records = [
      record({ issuedAt: NOW - 300, expiresAt: NOW - 50, usedAt: NOW - 200 }),
      record({ issuedAt: NOW - 200, expiresAt: NOW + 50, usedAt: NOW - 100 }),
      record({ issuedAt: NOW - 100, expiresAt: NOW + 200 }),
    ];
    expect(summariseGrant(records, NOW, {})).toMatchObject({ issuedAt: NOW - 300, lastRefreshedAt: NOW - 100, expiresAt: NOW + 200 });
  });

  it('keeps the login time after the first token is gone, from grantIssuedAt', () => {
    expect(summariseGrant([record({ issuedAt: NOW - 100, grantIssuedAt: NOW - 5_000 })], NOW, {})).toMatchObject({ issuedAt: NOW - 5_000, lastRefreshedAt: NOW - 100 });
  });

  it.each([
    ['every token used', [record({ usedAt: NOW - 1 })]],
    ['every token expired', [record({ expiresAt: NOW })]],
    ['no tokens', []],
  ])('is not active with %s', (_case, records) => {
    expect(summariseGrant(records, NOW, {})).toBeUndefined();
  });

  it.each([
    [{ username: 'alice' }, true],
    [{ clientId: 'portal' }, true],
    [{ username: 'alice', clientId: 'portal' }, true],
    [{ username: 'bob' }, false],
    [{ username: 'alice', clientId: 'mobile' }, false],
  ])('filter %j matches: %s', (filter, matches) => {
    expect(summariseGrant([record({})], NOW, filter) !== undefined).toBe(matches);
  });
});
