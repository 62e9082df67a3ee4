import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCall } from '../../helpers/admin.js';
import { ManualClock } from '../../helpers/clock.js';
import { bootGateway, type TestGateway } from '../../helpers/gateway.js';

/** GET /admin/v1/keys against a real gateway's admin listener, on a frozen clock. */

const HOUR = 3_600_000;
let tg: TestGateway;
const clock = new ManualClock(Date.parse('2026-11-23T15:00:00.000Z'));
beforeAll(async () => {
  tg = await bootGateway({ clock, config: { keys: { rotation_interval: '1h' }, tokens: { access_ttl: '30m', clock_leeway: '5s' } } });
});
afterAll(() => tg.close());

const keys = () => adminCall(tg.gateway.adminUrl, 'GET', '/admin/v1/keys');
const iso = (ms: number) => new Date(ms).toISOString();

describe('GET /admin/v1/keys', () => {
  it('lists the key that signs and the next one, with the JWKS kids, and when each signs', async () => {
    const { status, body } = await keys();
    expect(status).toBe(200);
    const jwks = (await (await fetch(`${tg.url}/oauth2/v1/keys`)).json()) as { keys: Array<{ kid: string }> };
    expect(body.keys.map((key: { kid: string }) => key.kid)).toEqual(jwks.keys.map((key) => key.kid));
    const started = clock.now();
    expect(body).toEqual({
      rotationInterval: 3600,
      keys: [
        { kid: jwks.keys[0]?.kid, alg: 'ES256', state: 'signing', signsFrom: iso(started), publishedUntil: iso(started + HOUR + 30 * 60_000 + 5_000) },
        { kid: jwks.keys[1]?.kid, alg: 'ES256', state: 'next', signsFrom: iso(started + HOUR), publishedUntil: null },
      ],
    });
  });

  it('shows a rotated key as retired, still published until its last token has expired', async () => {
    const before = (await keys()).body.keys[0];
    clock.advance(60_000);
    expect((await adminCall(tg.gateway.adminUrl, 'POST', '/admin/v1/keys/rotate')).status).toBe(200);
    const after = (await keys()).body.keys;
    expect(after.map((key: { state: string }) => key.state)).toEqual(['retired', 'signing', 'next']);
    // It signed until the new key took over, and stays for the longest a token it signed can live.
    expect(after[0]).toEqual({ ...before, state: 'retired', publishedUntil: iso(Date.parse(after[1].signsFrom) + 30 * 60_000 + 5_000) });
    expect(JSON.stringify(after)).not.toMatch(/"d"|private/);
  });

  it('refuses a query it does not take', async () => {
    expect(await adminCall(tg.gateway.adminUrl, "GET", "/admin/v1/keys", { kid: "x" })).toEqual({
      status: 400,
      body: { error: 'unknown field "kid"; this takes none' },
    });
  });
});
