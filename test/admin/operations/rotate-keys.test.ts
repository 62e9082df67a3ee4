import { decodeProtectedHeader } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminCall } from '../../helpers/admin.js';
import { bootGateway, callProtected, issueTokens, refreshGrant, type TestGateway, type TokenResponse } from '../../helpers/gateway.js';

/** POST /admin/v1/keys/rotate against a real gateway's admin listener. */

let tg: TestGateway;
beforeEach(async () => {
  tg = await bootGateway();
});
afterEach(() => tg.close());

const rotate = (input: Record<string, unknown> = {}) => adminCall(tg.gateway.adminUrl, 'POST', '/admin/v1/keys/rotate', input);
const kidOf = (tokens: TokenResponse): string => decodeProtectedHeader(tokens.access_token).kid!;
const publishedKids = async (): Promise<string[]> =>
  ((await (await fetch(`${tg.url}/oauth2/v1/keys`)).json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);

describe('POST /admin/v1/keys/rotate', () => {
  it('signs new tokens with a new key while tokens issued before keep verifying; the JWKS lists both keys', async () => {
    const before = await issueTokens(tg.url);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(200);

    const { status, body } = await rotate();

    expect(status).toBe(200);
    expect(body.kid).not.toBe(kidOf(before));
    expect(body.dropped).not.toContain(kidOf(before));
    expect(body.warning).toBeUndefined();
    const after = await issueTokens(tg.url);
    expect(kidOf(after)).toBe(body.kid);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(200);
    expect((await callProtected(tg.url, after.access_token)).status).toBe(200);
    expect(await publishedKids()).toEqual(expect.arrayContaining([kidOf(before), body.kid, body.nextKid]));
    expect(body.published).toEqual(await publishedKids());
  });

  it('never loses a key it announced: of several rotations at once, each that answered 200 has its key published afterwards', async () => {
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
    const { body } = await rotate();
    expect(tg.logs.filter((line) => line.msg === 'signing key rotated')).toEqual([
      expect.objectContaining({ trigger: 'admin', kids: body.published }),
    ]);
  });

  it('with drop_previous, unpublishes every earlier key: tokens they signed are refused, even ones verified before', async () => {
    const before = await issueTokens(tg.url);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(200);

    const { status, body } = await rotate({ drop_previous: true });

    expect(status).toBe(200);
    expect(body.dropped).toContain(kidOf(before));
    expect(body.published).toEqual([body.kid, body.nextKid]);
    expect(body.warning).toContain('refused from now on');
    expect(await publishedKids()).not.toContain(kidOf(before));
    expect((await callProtected(tg.url, before.access_token)).status).toBe(401);
    // Refresh tokens are not signed: the client gets a token under the new key without logging in again.
    const refreshed = (await (await refreshGrant(tg.url, before.refresh_token)).json()) as TokenResponse;
    expect(kidOf(refreshed)).toBe(body.kid);
    expect((await callProtected(tg.url, refreshed.access_token)).status).toBe(200);
    expect(tg.logs).toContainEqual(expect.objectContaining({ msg: expect.stringContaining('earlier signing keys dropped'), dropped: body.dropped }));
  });

  it('can rotate again and again; each rotation signs with its own new key', async () => {
    const first = await rotate();
    const second = await rotate();
    expect(second.body.kid).not.toBe(first.body.kid);
    expect(second.body.published).toContain(first.body.kid);
    expect(kidOf(await issueTokens(tg.url))).toBe(second.body.kid);
  });

  const badInputs: Array<[string, Record<string, unknown>, string]> = [
    ['drop_previous that is not a boolean', { drop_previous: 'yes' }, '"drop_previous" must be true or false'],
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
