import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, errorOf, type TestGateway } from '../../helpers/gateway.js';

describe('GET /.well-known/oauth-authorization-server (RFC 8414 3)', () => {
  let tg: TestGateway;
  beforeAll(async () => {
    tg = await bootGateway({ config: { oauth: { form_encoded: true } } });
  });
  afterAll(() => tg.close());

  it('serves the same metadata as the OpenID Connect discovery document, with the same headers', async () => {
    const [rfc8414, oidc] = await Promise.all([fetch(`${tg.url}/.well-known/oauth-authorization-server`), fetch(`${tg.url}/.well-known/openid-configuration`)]);
    expect(rfc8414.status).toBe(200);
    expect(await rfc8414.json()).toEqual(await oidc.json());
    for (const header of ['content-type', 'cache-control', 'link']) expect(rfc8414.headers.get(header)).toBe(oidc.headers.get(header));
  });

  it('answers HEAD, and refuses POST with 405', async () => {
    expect((await fetch(`${tg.url}/.well-known/oauth-authorization-server`, { method: 'HEAD' })).status).toBe(200);
    const response = await fetch(`${tg.url}/.well-known/oauth-authorization-server`, { method: 'POST' });
    expect(await errorOf(response)).toMatchObject({ status: 405, errorCode: 'METHOD_NOT_ALLOWED' });
  });
});
