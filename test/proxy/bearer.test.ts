import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { createHmac } from 'node:crypto';
import { Agent, request } from 'node:http';
import { ManualClock } from '../helpers/clock.js';
import { bootGateway, callProtected, errorOf, issueTokens, revoke, type TestGateway } from '../helpers/gateway.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('Bearer validation on protected routes (SPEC 4.6, RFC 6750)', () => {
  let tg: TestGateway;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    tg = await bootGateway({ clock });
  });
  afterAll(() => tg.close());

  it('forwards a call with a valid token', async () => {
    const { access_token } = await issueTokens(tg.url);
    const response = await callProtected(tg.url, access_token);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, url: '/business/score/v2/directors' });
  });

  it('answers a call without credentials with 401 and a bare Bearer challenge', async () => {
    const response = await callProtected(tg.url, undefined);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="token-gateway"');
    expect(await errorOf(response)).toMatchObject({
      status: 401,
      errorCode: 'AUTHENTICATION_REQUIRED',
      body: { errors: [{ message: 'Access to the requested resource is not allowed' }] },
    });
  });

  it('answers an expired token with "Access token is Invalid" and an invalid_token challenge', async () => {
    const { access_token } = await issueTokens(tg.url);
    clock.advance(30 * 60_000 + 5_000 + 1_000);
    const response = await callProtected(tg.url, access_token);
    clock.advance(-(30 * 60_000 + 6_000));
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await errorOf(response)).toMatchObject({
      status: 401,
      errorCode: 'ACCESS_TOKEN_INVALID',
      body: { errors: [{ errorType: 'Unauthorized', message: 'Access token is Invalid' }] },
    });
  });

  it('accepts a token within the clock leeway after exp', async () => {
    const { access_token } = await issueTokens(tg.url);
    clock.advance(30 * 60_000 + 4_000);
    const status = (await callProtected(tg.url, access_token)).status;
    clock.advance(-(30 * 60_000 + 4_000));
    expect(status).toBe(200);
  });

  describe('forged and foreign tokens never reach the upstream', () => {
    const forgeries: Array<[string, (genuine: string) => Promise<string>]> = [
      ['alg: none', async (genuine) => `${b64({ alg: 'none', typ: 'at+jwt' })}.${genuine.split('.')[1]}.`],
      [
        'HS256 keyed with the published public key',
        async (genuine) => {
          const jwks = (await (await fetch(`${tg.url}/oauth2/v1/keys`)).json()) as { keys: unknown[] };
          const header = b64({ alg: 'HS256', typ: 'at+jwt', kid: decodeProtectedHeader(genuine).kid });
          const input = `${header}.${genuine.split('.')[1]}`;
          const signature = createHmac('sha256', JSON.stringify(jwks.keys[0])).update(input).digest('base64url');
          return `${input}.${signature}`;
        },
      ],
      [
        'a foreign key claiming a published kid',
        async (genuine) => {
          const { privateKey } = await generateKeyPair('ES256');
          return new SignJWT(decodeJwt(genuine)).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: decodeProtectedHeader(genuine).kid! }).sign(privateKey);
        },
      ],
      [
        'a tampered signature',
        async (genuine) => {
          const [h, p, s] = genuine.split('.') as [string, string, string];
          const bytes = Buffer.from(s, 'base64url');
          bytes[0] = bytes[0]! ^ 0xff;
          return `${h}.${p}.${bytes.toString('base64url')}`;
        },
      ],
      [
        'a tampered payload (another user)',
        async (genuine) => {
          const [h, , s] = genuine.split('.') as [string, string, string];
          return `${h}.${b64({ ...decodeJwt(genuine), sub: 'admin' })}.${s}`;
        },
      ],
      [
        'our own key, but typ JWT (an ID token, not an access token)',
        async (genuine) => {
          const key = tg.gateway.context.keyRing.selectSigningKey();
          return new SignJWT(decodeJwt(genuine)).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
        },
      ],
      [
        'our own key, but another audience',
        async (genuine) => {
          const key = tg.gateway.context.keyRing.selectSigningKey();
          return new SignJWT({ ...decodeJwt(genuine), aud: 'https://elsewhere.example.com' })
            .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
            .sign(key.privateKey);
        },
      ],
      ['garbage', async () => 'not.a.jwt'],
      ['a refresh token used as bearer', async () => (await issueTokens(tg.url)).refresh_token],
    ];

    it.each(forgeries)('%s -> 401 ACCESS_TOKEN_INVALID', async (_case, forge) => {
      const { access_token } = await issueTokens(tg.url);
      const forged = await forge(access_token);
      const seenBefore = tg.upstream.seen.length;
      const response = await callProtected(tg.url, forged);
      expect(await errorOf(response)).toMatchObject({ status: 401, errorCode: 'ACCESS_TOKEN_INVALID' });
      expect(tg.upstream.seen.length).toBe(seenBefore);
    });
  });

  it('refuses a token issued for another issuer', async () => {
    const other = await bootGateway({ config: { issuer: 'https://uat.example.com' } });
    try {
      const { access_token } = await issueTokens(other.url);
      expect(await errorOf(await callProtected(tg.url, access_token))).toMatchObject({ status: 401, errorCode: 'ACCESS_TOKEN_INVALID' });
    } finally {
      await other.close();
    }
  });

  it.each([
    ['Basic scheme', 'Basic dXNlcjpwYXNz', 'AUTHENTICATION_REQUIRED'],
    ['Bearer without a token', 'Bearer', 'ACCESS_TOKEN_INVALID'],
    ['Bearer with spaces inside', 'Bearer a b', 'ACCESS_TOKEN_INVALID'],
  ])('%s -> 401 %s', async (_case, authorization, errorCode) => {
    const response = await fetch(`${tg.url}/business/score/v2/directors`, { headers: { authorization } });
    expect(await errorOf(response)).toMatchObject({ status: 401, errorCode });
  });

  describe('one keep-alive connection, credentials changing between its requests', () => {
    // The gateway remembers the last credential each connection presented (bearer.ts): only its parsing, never a verdict.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    afterAll(() => agent.destroy());
    const ports = new Set<number>();
    const call = (authorization: string | undefined) =>
      new Promise<{ status: number; errorCode?: string }>((resolve, reject) => {
        const req = request(`${tg.url}/business/score/v2/directors`, { agent, headers: authorization === undefined ? {} : { authorization } }, (res) => {
          ports.add(res.socket.localPort ?? 0);
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, errorCode: res.statusCode === 200 ? undefined : JSON.parse(body).errors?.[0]?.errorCode }));
        });
        req.on('error', reject).end();
      });

    it('judges each request by its own header: valid, none, malformed, forged, another valid one, revoked, expired', async () => {
      const first = (await issueTokens(tg.url)).access_token;
      const second = (await issueTokens(tg.url)).access_token;
      const [h, p] = first.split('.') as [string, string];
      expect(await call(`Bearer ${first}`)).toEqual({ status: 200 });
      expect(await call(`Bearer ${first}`)).toEqual({ status: 200 });
      expect(await call(undefined)).toEqual({ status: 401, errorCode: 'AUTHENTICATION_REQUIRED' });
      expect(await call('Bearer a b')).toEqual({ status: 401, errorCode: 'ACCESS_TOKEN_INVALID' });
      // The genuine token's signature under another payload: the header differs, so nothing of the first is reused.
      expect(await call(`Bearer ${h}.${p}x.${second.split('.')[2]}`)).toEqual({ status: 401, errorCode: 'ACCESS_TOKEN_INVALID' });
      expect(await call(`Bearer ${second}`)).toEqual({ status: 200 });
      expect(await call(`bearer   ${first}`)).toEqual({ status: 200 });
      expect((await revoke(tg.url, first)).status).toBe(200);
      expect(await call(`bearer   ${first}`)).toEqual({ status: 401, errorCode: 'ACCESS_TOKEN_INVALID' });
      expect(await call(`Bearer ${second}`)).toEqual({ status: 200 });
      clock.advance(30 * 60_000 + 6_000);
      const expired = await call(`Bearer ${second}`);
      clock.advance(-(30 * 60_000 + 6_000));
      expect(expired).toEqual({ status: 401, errorCode: 'ACCESS_TOKEN_INVALID' });
      // All of it on one connection, which is what the test is about.
      expect(ports.size).toBe(1);
    });
  });
});
