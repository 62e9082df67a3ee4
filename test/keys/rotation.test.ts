import { afterEach, describe, expect, it } from 'vitest';
import { decodeProtectedHeader } from 'jose';
import { ManualClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { bootGateway, callProtected, issueTokens, type TestGateway } from '../helpers/gateway.js';

const kidsOf = async (url: string) => ((await (await fetch(`${url}/oauth2/v1/keys`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
const kidOf = (token: string) => decodeProtectedHeader(token).kid!;

/** Under the minute the schedule sleeps at most, so one advance reaches the rotation itself. */
const INTERVAL_MS = 30_000;

/**
 * The rotation schedule waits on the gateway's clock (`clock.setTimer`): the
 * test advances a ManualClock by one interval and the rotation is due at
 * once, however slow the machine. Only its run (key generation, the store
 * write) is real work, polled for.
 */
describe('automatic key rotation in a running gateway', () => {
  let tg: TestGateway;
  afterEach(() => tg?.close());

  it('keeps a token signed before a rotation verifying after it, and signs only with keys published beforehand', async () => {
    const clock = new ManualClock();
    tg = await bootGateway({ clock, config: { keys: { rotation_interval: '30s' } } });
    const before = await issueTokens(tg.url);
    const oldKid = kidOf(before.access_token);
    const publishedBefore = await kidsOf(tg.url);
    expect(publishedBefore).toHaveLength(2);
    expect(publishedBefore).toContain(oldKid);

    clock.advance(INTERVAL_MS);
    // Which key signs is a function of the clock alone: the next one, published an interval ago, signs at once.
    const after = await issueTokens(tg.url);
    expect(kidOf(after.access_token)).not.toBe(oldKid);
    expect(publishedBefore).toContain(kidOf(after.access_token));
    // The schedule's run adds the key after that one, and says so.
    await eventually(() => tg.logs.some((line) => line.msg === 'signing key rotated'), { what: "the log line 'signing key rotated'" });
    const publishedAfter = await kidsOf(tg.url);
    expect(publishedAfter).toContain(oldKid);
    expect(publishedAfter).toHaveLength(3);
    expect((await callProtected(tg.url, before.access_token)).status).toBe(200);
    expect((await callProtected(tg.url, after.access_token)).status).toBe(200);
  });

  it('does not rotate before the interval is over', async () => {
    const clock = new ManualClock();
    tg = await bootGateway({ clock, config: { keys: { rotation_interval: '30s' } } });
    const first = kidOf((await issueTokens(tg.url)).access_token);
    clock.advance(INTERVAL_MS - 1);
    expect(kidOf((await issueTokens(tg.url)).access_token)).toBe(first);
    expect(await kidsOf(tg.url)).toHaveLength(2);
    expect(tg.logs.some((line) => line.msg === 'signing key rotated')).toBe(false);
  });

  it('caches the JWKS for at most half a rotation interval', async () => {
    tg = await bootGateway({ config: { keys: { rotation_interval: '60s' } } });
    const response = await fetch(`${tg.url}/oauth2/v1/keys`);
    expect(response.headers.get('cache-control')).toBe('public, max-age=30');
  });
});
