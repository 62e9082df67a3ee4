import { afterEach, describe, expect, it } from 'vitest';
import { decodeProtectedHeader } from 'jose';
import { bootGateway, callProtected, issueTokens, type TestGateway } from '../helpers/gateway.js';

const kidsOf = async (url: string) => ((await (await fetch(`${url}/oauth2/v1/keys`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);

/** Polls until `condition` holds; bounded, so a broken rotation fails instead of hanging. */
async function eventually(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('automatic key rotation in a running gateway', () => {
  let tg: TestGateway;
  afterEach(() => tg?.close());

  it('keeps a token signed before a rotation verifying after it, and signs only with keys published beforehand', async () => {
    // Each key is published one interval before it signs; the interval is long enough that a slow password grant on a
    // loaded machine cannot span it, and every JWKS seen before a token was asked for counts as "published beforehand".
    tg = await bootGateway({ config: { keys: { rotation_interval: '2s' } } });
    const before = await issueTokens(tg.url);
    const oldKid = decodeProtectedHeader(before.access_token).kid!;
    let after = before;
    const publishedBeforeSigning = new Set<string>();
    await eventually(async () => {
      for (const kid of await kidsOf(tg.url)) publishedBeforeSigning.add(kid);
      after = await issueTokens(tg.url);
      return decodeProtectedHeader(after.access_token).kid !== oldKid;
    });
    expect([...publishedBeforeSigning]).toContain(decodeProtectedHeader(after.access_token).kid);
    expect(await kidsOf(tg.url)).toContain(oldKid);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(200);
    expect((await callProtected(tg.url, after.access_token)).status).toBe(200);
    expect(tg.logs.some((line) => line.msg === 'signing key rotated')).toBe(true);
  });

  it('caches the JWKS for at most half a rotation interval', async () => {
    tg = await bootGateway({ config: { keys: { rotation_interval: '60s' } } });
    const response = await fetch(`${tg.url}/oauth2/v1/keys`);
    expect(response.headers.get('cache-control')).toBe('public, max-age=30');
  });
});
