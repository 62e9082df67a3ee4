import { decodeProtectedHeader } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publicationLeadMs } from '../../../src/keys/publication.js';
import { adminCall } from '../../helpers/admin.js';
import { ManualClock } from '../../helpers/clock.js';
import { bootGateway, callProtected, issueTokens, refreshGrant, type TestGateway, type TokenResponse } from '../../helpers/gateway.js';

/** POST /admin/v1/keys/rotate against a real gateway's admin listener; time is the subject, so the clock is the test's. */

const HOUR = 3_600_000;
/** The default rotation interval's lead: JWKS max-age 300 s and a 10 s margin. */
const LEAD = publicationLeadMs(24 * HOUR);
/** Past the lead and well within the tokens' 30 minutes. */
const MATURE = LEAD + 60_000;

let tg: TestGateway;
let clock: ManualClock;
let startedAt: number;
beforeEach(async () => {
  clock = new ManualClock();
  startedAt = clock.now();
  tg = await bootGateway({ clock });
});
afterEach(() => tg.close());

const rotate = (input: Record<string, unknown> = {}) => adminCall(tg.gateway.adminUrl, 'POST', '/admin/v1/keys/rotate', input);
const kidOf = (tokens: TokenResponse): string => decodeProtectedHeader(tokens.access_token).kid!;
const publishedKids = async (): Promise<string[]> =>
  ((await (await fetch(`${tg.url}/oauth2/v1/keys`)).json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);

describe('POST /admin/v1/keys/rotate', () => {
  it('brings the published next key in at once when every cached JWKS holds it, and publishes the key after it', async () => {
    const before = await issueTokens(tg.url);
    const [, next] = await publishedKids();
    clock.advance(MATURE);

    const { status, body } = await rotate();

    expect(status).toBe(200);
    expect(body).toMatchObject({ kid: next, signingNow: true, previousKid: kidOf(before), changed: true, immediate: false, confirmedEverywhere: true, unconfirmed: [] });
    expect(body.signsFrom).toBe(new Date(clock.now()).toISOString());
    expect(body.nextSignsFrom).toBe(new Date(clock.now() + 24 * HOUR).toISOString());
    expect(body.confirmed).toHaveLength(1);
    expect(body.warning).toBeUndefined();
    const after = await issueTokens(tg.url);
    expect(kidOf(after)).toBe(body.kid);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(200);
    expect((await callProtected(tg.url, after.access_token)).status).toBe(200);
    expect(body.published).toEqual([kidOf(before), body.kid, body.nextKid]);
    expect(body.published).toEqual(await publishedKids());
  });

  it('says when the next key takes over when it was published too recently; the current key signs until then', async () => {
    const before = await issueTokens(tg.url);
    clock.advance(60_000);

    const { status, body } = await rotate();

    expect(status).toBe(200);
    expect(body).toMatchObject({ signingNow: false, previousKid: kidOf(before), signsFrom: new Date(startedAt + LEAD).toISOString() });
    expect(body.note).toContain(`${kidOf(before)} goes on signing until ${body.signsFrom}`);
    expect(kidOf(await issueTokens(tg.url))).toBe(kidOf(before));
    clock.advance(startedAt + LEAD - clock.now());
    expect(kidOf(await issueTokens(tg.url))).toBe(body.kid);
  });

  it('brings the key it just published in as soon as it may when asked again, and changes nothing a third time', async () => {
    clock.advance(MATURE);
    const first = await rotate();
    const second = await rotate();
    expect(second.body).toMatchObject({ kid: first.body.nextKid, previousKid: first.body.kid, signingNow: false, changed: true });
    expect(second.body.signsFrom).toBe(new Date(clock.now() + LEAD).toISOString());

    const third = await rotate();

    expect(third.body).toMatchObject({ kid: second.body.kid, signsFrom: second.body.signsFrom, nextKid: second.body.nextKid, changed: false });
    expect(third.body.note).toContain('nothing changed');
    expect(kidOf(await issueTokens(tg.url))).toBe(first.body.kid);
    // Counted and logged as rotations: the two that changed the ring.
    expect(tg.logs.filter((line) => line.msg === 'signing key rotated')).toHaveLength(2);
  });

  it('never loses a key it announced: of several rotations at once, each that answered has its key published afterwards', async () => {
    clock.advance(MATURE);
    const answers = await Promise.all([rotate(), rotate(), rotate()]);
    const rotated = answers.filter((answer) => answer.status === 200);
    expect(rotated.length).toBeGreaterThan(0);
    // One that lost the race says so rather than overwriting the other's ring.
    for (const answer of answers.filter((candidate) => candidate.status !== 200)) expect(answer.status).toBe(503);
    const published = await publishedKids();
    for (const { body } of rotated) expect(published).toContain(body.kid);
    const token = await issueTokens(tg.url);
    expect((await callProtected(tg.url, token.access_token)).status).toBe(200);
  });

  it('is counted and logged as a key rotation, like a scheduled one', async () => {
    clock.advance(MATURE);
    const { body } = await rotate();
    expect(tg.logs.filter((line) => line.msg === 'signing key rotated')).toEqual([expect.objectContaining({ trigger: 'admin', kids: body.published })]);
  });

  it('with drop_previous, unpublishes every key that signed: tokens they signed are refused, even ones verified before', async () => {
    const before = await issueTokens(tg.url);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(200);
    clock.advance(MATURE);

    const { status, body } = await rotate({ drop_previous: true });

    expect(status).toBe(200);
    expect(body.dropped).toEqual([kidOf(before)]);
    expect(body.published).toEqual([body.kid, body.nextKid]);
    expect(body.warning).toContain('refused from now on');
    // The default rotation interval (24h): the JWKS's max-age is its ceiling, 300 s.
    expect(body.warning).toContain('until their cache expires (at most 5 minutes for ours)');
    expect(await publishedKids()).not.toContain(kidOf(before));
    expect((await callProtected(tg.url, before.access_token)).status).toBe(401);
    // Refresh tokens are not signed: the client gets a token under the new key without logging in again.
    const refreshed = (await (await refreshGrant(tg.url, before.refresh_token)).json()) as TokenResponse;
    expect(kidOf(refreshed)).toBe(body.kid);
    expect((await callProtected(tg.url, refreshed.access_token)).status).toBe(200);
    expect(tg.logs).toContainEqual(expect.objectContaining({ msg: expect.stringContaining('earlier signing keys dropped'), dropped: body.dropped }));
  });

  it('refuses drop_previous with 409 while the next key is too new to sign, saying from when, and changes nothing', async () => {
    const kids = await publishedKids();
    clock.advance(60_000);

    const { status, body } = await rotate({ drop_previous: true });

    expect(status).toBe(409);
    expect(body.error).toContain(`from ${new Date(startedAt + LEAD).toISOString()}`);
    expect(body.error).toContain('"immediate": true');
    expect(await publishedKids()).toEqual(kids);
  });

  for (const dropPrevious of [false, true]) {
    it(`with immediate${dropPrevious ? ' and drop_previous' : ''}, signs with a brand-new key at once and says what that costs`, async () => {
      const before = await issueTokens(tg.url);
      const kids = await publishedKids();
      clock.advance(60_000);

      const { status, body } = await rotate({ immediate: true, ...(dropPrevious ? { drop_previous: true } : {}) });

      expect(status).toBe(200);
      expect(kids).not.toContain(body.kid);
      expect(body).toMatchObject({ immediate: true, signingNow: true, previousKid: kidOf(before) });
      expect(body.warning).toContain('brand-new key signs from now on');
      expect(kidOf(await issueTokens(tg.url))).toBe(body.kid);
      expect((await callProtected(tg.url, before.access_token)).status).toBe(dropPrevious ? 401 : 200);
      expect(tg.logs).toContainEqual(expect.objectContaining({ msg: 'admin: emergency rotation, a brand-new key signs at once' }));
    });
  }

  const badInputs: Array<[string, Record<string, unknown>, string]> = [
    ['drop_previous that is not a boolean', { drop_previous: 'yes' }, '"drop_previous" must be true or false'],
    ['immediate that is not a boolean', { immediate: 1 }, '"immediate" must be true or false'],
    ['a misspelt option', { drop_prev: true }, 'unknown field "drop_prev"'],
  ];
  for (const [name, input, message] of badInputs) {
    it(`refuses ${name} with 400 and rotates nothing`, async () => {
      const kids = await publishedKids();
      const answer = await rotate(input);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain(message);
      expect(await publishedKids()).toEqual(kids);
    });
  }
});

describe('POST /admin/v1/keys/rotate under a short rotation interval', () => {
  it("says the JWKS cache lifetime the gateway actually sends (half the interval), not the 5-minute ceiling", async () => {
    await tg.close();
    tg = await bootGateway({ clock, config: { keys: { rotation_interval: '2m' } } });
    expect((await fetch(`${tg.url}/oauth2/v1/keys`)).headers.get('cache-control')).toContain('max-age=60');
    const { status, body } = await rotate({ immediate: true });
    expect(status).toBe(200);
    expect(body.warning).toContain('(at most 1 minute for ours;');
  });
});
