import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TokenGatewayError, TokenRequestError } from '../src/errors.js';
import { requestPasswordGrant, requestRefreshGrant, requestRevocation, type TokenEndpointContext } from '../src/token-endpoint.js';
import { json, startWireServer, type WireServer } from './helpers/wire-server.js';

const CLIENT = { clientId: 'app-one', clientSecret: 'app-one-secret-XYZ' };
const USER = { username: 'alice', password: 'alice-password-XYZ' };
const SECRETS = [CLIENT.clientSecret, USER.password, 'refresh-XYZ'];
const ISSUED = { issued_at: '1795293012282', expires_in: '1800', token_type: 'Bearer', access_token: 'eyJ.access.XYZ', refresh_token: 'refresh-XYZ-2' };

// The gateway's envelope for a refused refresh token (SPEC 7, its catalogue's INVALID_REFRESH_TOKEN row).
const REFRESH_REFUSED = {
  success: false,
  requestId: 'req-42',
  errors: [{ errorCode: 'INVALID_REFRESH_TOKEN', errorType: 'Bad Request', message: 'The refresh token is invalid' }],
  error: 'invalid_grant',
};

describe('the token endpoint wire (SPEC 4.3 to 4.5), against a real HTTP server', () => {
  let server: WireServer;
  let ctx: TokenEndpointContext;

  beforeEach(async () => {
    server = await startWireServer();
    ctx = { fetch: (input, init) => fetch(input, init), baseUrl: server.url, timeoutMs: 5_000, ...CLIENT };
  });
  afterEach(() => server.close());

  /** What the call threw, checked to quote no credential. */
  async function failure(call: Promise<unknown>): Promise<Error> {
    const error = await call.then(
      () => expect.fail('expected the call to fail'),
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Error);
    for (const secret of SECRETS) expect((error as Error).message).not.toContain(secret);
    return error as Error;
  }

  describe('password grant (SPEC 4.3)', () => {
    it('POSTs the credentials as a JSON body to /oauth2/v1/token, asking for JSON', async () => {
      server.answer(json(200, ISSUED));
      const issued = await requestPasswordGrant(ctx, USER);
      expect(server.seen).toHaveLength(1);
      const [sent] = server.seen;
      expect(sent).toMatchObject({ method: 'POST', url: '/oauth2/v1/token' });
      expect(sent?.headers).toMatchObject({ 'content-type': 'application/json', accept: 'application/json' });
      expect(sent?.headers).not.toHaveProperty('grant_type');
      expect(JSON.parse(sent?.body ?? '')).toEqual({ username: 'alice', password: 'alice-password-XYZ', client_id: 'app-one', client_secret: 'app-one-secret-XYZ' });
      expect(issued).toEqual({ accessToken: ISSUED.access_token, refreshToken: ISSUED.refresh_token, lifetimeMs: 1_800_000, issuedAt: 1795293012282 });
    });

    it('sends the request under the base URL path, when the gateway is mounted below one', async () => {
      server.answer(json(200, ISSUED));
      await requestPasswordGrant({ ...ctx, baseUrl: `${server.url}/eu/prod` }, USER);
      expect(server.seen[0]?.url).toBe('/eu/prod/oauth2/v1/token');
    });

    it('accepts expires_in and issued_at as numbers (RFC 6749 writes them so), and a response without refresh_token', async () => {
      server.answer(json(200, { access_token: 'a', expires_in: 300, issued_at: 17, token_type: 'bearer' }));
      expect(await requestPasswordGrant(ctx, USER)).toEqual({ accessToken: 'a', refreshToken: undefined, lifetimeMs: 300_000, issuedAt: 17 });
    });
  });

  describe('refresh grant (SPEC 4.4)', () => {
    it('sends every parameter as a header and no body', async () => {
      server.answer(json(200, ISSUED));
      await requestRefreshGrant(ctx, 'refresh-XYZ');
      const [sent] = server.seen;
      expect(sent).toMatchObject({ method: 'POST', url: '/oauth2/v1/token', body: '' });
      expect(sent?.headers).toMatchObject({
        'content-type': 'application/json',
        accept: 'application/json',
        grant_type: 'refresh_token',
        refresh_token: 'refresh-XYZ',
        client_id: 'app-one',
        client_secret: 'app-one-secret-XYZ',
      });
    });

    it('turns the envelope of a refused refresh token into a TokenGatewayError with its fields', async () => {
      server.answer(json(400, REFRESH_REFUSED));
      const error = await failure(requestRefreshGrant(ctx, 'refresh-XYZ'));
      expect(error).toBeInstanceOf(TokenGatewayError);
      expect(error).toMatchObject({
        status: 400,
        errorCode: 'INVALID_REFRESH_TOKEN',
        message: 'The refresh token is invalid',
        requestId: 'req-42',
        oauthError: 'invalid_grant',
        retryAfter: undefined,
      });
    });
  });

  describe('revocation (SPEC 4.5)', () => {
    it('POSTs the token and the client credentials as headers to /oauth2/v1/revokeToken', async () => {
      server.answer(json(200, { success: true, requestId: 'req-7' }));
      await expect(requestRevocation(ctx, 'refresh-XYZ')).resolves.toBeUndefined();
      const [sent] = server.seen;
      expect(sent).toMatchObject({ method: 'POST', url: '/oauth2/v1/revokeToken', body: '' });
      expect(sent?.headers).toMatchObject({ token: 'refresh-XYZ', client_id: 'app-one', client_secret: 'app-one-secret-XYZ', accept: 'application/json' });
    });

    it('throws the refusal as a TokenGatewayError', async () => {
      const envelope = { success: false, requestId: 'req-9', errors: [{ errorCode: 'INVALID_CLIENT_CREDENTIALS', message: 'Access is denied due to invalid client id or client secret' }], error: 'invalid_client' };
      server.answer(json(401, envelope));
      expect(await failure(requestRevocation(ctx, 'refresh-XYZ'))).toMatchObject({ name: 'TokenGatewayError', status: 401, errorCode: 'INVALID_CLIENT_CREDENTIALS', oauthError: 'invalid_client' });
    });
  });

  describe('refusals', () => {
    it('reads Retry-After, and the request id from X-Request-Id when the body has none', async () => {
      const envelope = { success: false, errors: [{ errorCode: 'SERVICE_UNAVAILABLE', message: 'The service is unavailable' }] };
      server.answer(json(503, envelope, { 'retry-after': '7', 'x-request-id': 'req-from-header' }));
      expect(await failure(requestPasswordGrant(ctx, USER))).toMatchObject({ name: 'TokenGatewayError', status: 503, retryAfter: 7, requestId: 'req-from-header' });
    });

    it.each([
      ['an HTML page from a load balancer', 502, 'text/html', '<html><body>Bad Gateway</body></html>'],
      ['JSON that is not the envelope', 400, 'application/json', '{"error":"invalid_request"}'],
      ['an envelope without a message', 401, 'application/json', '{"success":false,"errors":[{"errorCode":"X"}]}'],
    ])('turns %s into a TokenRequestError that keeps the status', async (_, status, contentType, body) => {
      server.answer((__, res) => res.writeHead(status, { 'content-type': contentType }).end(body));
      const error = await failure(requestPasswordGrant(ctx, USER));
      expect(error).toBeInstanceOf(TokenRequestError);
      expect(error).toMatchObject({ status, message: `/oauth2/v1/token answered ${status} without the gateway's error envelope` });
    });
  });

  describe('a 200 that is not a token response (SPEC 2.1)', () => {
    it.each([
      ['no access_token', { ...ISSUED, access_token: undefined }],
      ['no expires_in', { ...ISSUED, expires_in: undefined }],
      ['expires_in in words', { ...ISSUED, expires_in: 'half an hour' }],
      ['a negative expires_in', { ...ISSUED, expires_in: -1 }],
      ['a fractional expires_in', { ...ISSUED, expires_in: 1.5 }],
      ['an access token with a space (it travels in a header)', { ...ISSUED, access_token: 'eyJ access' }],
      ['an empty access token', { ...ISSUED, access_token: '' }],
      ['a refresh token that is a number', { ...ISSUED, refresh_token: 42 }],
      ['a token type other than Bearer', { ...ISSUED, token_type: 'mac' }],
      ['an array', [ISSUED]],
      ['null', null],
    ])('%s: a TokenRequestError with status 200', async (_, body) => {
      server.answer(json(200, body));
      const error = await failure(requestPasswordGrant(ctx, USER));
      expect(error).toBeInstanceOf(TokenRequestError);
      expect(error).toMatchObject({ status: 200, message: '/oauth2/v1/token answered 200 without a valid token response' });
    });

    it('a body that is not JSON: the same', async () => {
      server.answer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>welcome</html>'));
      expect(await failure(requestPasswordGrant(ctx, USER))).toMatchObject({ name: 'TokenRequestError', status: 200 });
    });
  });

  describe('no usable answer', () => {
    it('refuses a redirect: the credentials never reach where it points', async () => {
      server.answer((request, res) => {
        if (request.url === '/elsewhere') res.writeHead(200).end();
        else res.writeHead(307, { location: '/elsewhere' }).end();
      });
      const error = await failure(requestPasswordGrant(ctx, USER));
      expect(error).toMatchObject({ name: 'TokenRequestError', message: '/oauth2/v1/token could not be reached', status: undefined });
      expect(server.seen.map((request) => request.url)).toEqual(['/oauth2/v1/token']);
    });

    it('gives up after timeoutMs when no answer comes', async () => {
      server.answer(() => undefined); // holds the request
      const error = await failure(requestPasswordGrant({ ...ctx, timeoutMs: 100 }, USER));
      expect(error).toMatchObject({ name: 'TokenRequestError', message: 'no answer from /oauth2/v1/token within 100 ms', status: undefined });
      expect((error as TokenRequestError).cause).toBeInstanceOf(Error);
    });

    it('gives up after timeoutMs when the headers came but the body stalls', async () => {
      server.answer((_, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"access_token":');
      });
      const error = await failure(requestPasswordGrant({ ...ctx, timeoutMs: 200 }, USER));
      expect(error).toBeInstanceOf(TokenRequestError);
      expect(error.message).toMatch(/did not arrive in time$/);
      // A response came: its status is on the error, as the README says.
      expect((error as TokenRequestError).status).toBe(200);
    });

    it('reports a refusal whose body stalls as a timeout with its status, not as an answer without the envelope', async () => {
      server.answer((_, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.write('{"success":false,');
      });
      const error = await failure(requestPasswordGrant({ ...ctx, timeoutMs: 200 }, USER));
      expect(error).toMatchObject({ name: 'TokenRequestError', status: 401 });
      expect(error.message).toMatch(/did not arrive in time$/);
    });

    it('reports a refused connection as unreachable, the network error as its cause', async () => {
      const url = server.url;
      await server.close();
      const error = await failure(requestRevocation({ ...ctx, baseUrl: url }, 'refresh-XYZ'));
      expect(error).toMatchObject({ name: 'TokenRequestError', message: '/oauth2/v1/revokeToken could not be reached', status: undefined });
      expect((error as TokenRequestError).cause).toBeInstanceOf(Error);
      server = await startWireServer(); // for afterEach
    });
  });
});
