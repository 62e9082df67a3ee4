import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, callProtected, errorOf, issueTokens, type TestGateway } from '../helpers/gateway.js';

/** A configured route as the pipeline runs it: Bearer authentication, then forwarding. */
describe('a protected route', () => {
  let tg: TestGateway;
  let token: string;
  beforeAll(async () => {
    tg = await bootGateway({ config: { limits: { body_size: '1kb' } } });
    token = (await issueTokens(tg.url)).access_token;
  });
  afterAll(() => tg.close());

  it('forwards a call with a valid Bearer token', async () => {
    const before = tg.upstream.seen.length;
    expect((await callProtected(tg.url, token, '/business/score/v2/a')).status).toBe(200);
    expect(tg.upstream.seen.length).toBe(before + 1);
  });

  it.each([
    ['no token', undefined],
    ['a token that is not a JWT', 'garbage'],
  ])('refuses %s with 401 and never calls the upstream', async (_case, bearer) => {
    const before = tg.upstream.seen.length;
    expect(await errorOf(await callProtected(tg.url, bearer, '/business/score/v2/b'))).toMatchObject({ status: 401 });
    expect(tg.upstream.seen.length).toBe(before);
  });

  it('refuses a body announced larger than limits.body_size with 413 before a byte goes upstream', async () => {
    const before = tg.upstream.seen.length;
    const response = await fetch(`${tg.url}/business/score/v2/c`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(2_048),
    });
    expect(await errorOf(response)).toMatchObject({ status: 413, errorCode: 'PAYLOAD_TOO_LARGE' });
    expect(tg.upstream.seen.length).toBe(before);
  });
});
