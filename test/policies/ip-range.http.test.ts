import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, errorOf, issueTokens, type TestGateway } from '../helpers/gateway.js';

const OFFICE_ONLY = {
  policies: [
    {
      name: 'office-network',
      kind: 'ip-range',
      rules: [{ deny: '10.0.66.0/24' }, { allow: ['10.0.0.0/8', '2001:db8::/32'] }],
      default: 'deny',
    },
  ],
};

async function expectForbidden(response: Response): Promise<void> {
  const { status, errorCode, body } = await errorOf(response);
  expect({ status, errorCode, message: body.errors[0]?.message }).toEqual({
    status: 403,
    errorCode: 'IP_RANGE_FORBIDDEN',
    message: 'Access to the requested resource is Forbidden',
  });
}

/**
 * The address a range is checked against. Tests reach the gateway from
 * 127.0.0.1, so a gateway that trusts 127.0.0.1 as its load balancer reads
 * X-Forwarded-For, and one that does not must ignore it.
 */
describe('ip-range over HTTP', () => {
  describe('with no trusted proxies', () => {
    let gw: TestGateway;
    let token: string;
    beforeAll(async () => {
      gw = await bootGateway({ policies: { ip: OFFICE_ONLY }, config: (upstream) => ({ routes: [{ path: '/ip', upstream, policies: ['office-network'] }] }) });
      token = (await issueTokens(gw.url)).access_token;
    });
    afterAll(() => gw.close());

    it('takes the socket address and ignores X-Forwarded-For, so a client cannot claim an allowed address', async () => {
      await expectForbidden(await fetch(`${gw.url}/ip/x`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '10.0.0.1' } }));
      expect(gw.upstream.seen).toHaveLength(0);
    });

    it('refuses before the token is looked at: no token is still a 403', async () => {
      await expectForbidden(await fetch(`${gw.url}/ip/x`));
    });
  });

  describe('behind trusted proxies', () => {
    let gw: TestGateway;
    let token: string;
    const from = (forwardedFor: string) => fetch(`${gw.url}/ip/x`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': forwardedFor } });
    beforeAll(async () => {
      gw = await bootGateway({
        policies: { ip: OFFICE_ONLY },
        config: (upstream) => ({ trusted_proxies: ['127.0.0.1', '192.168.50.0/24'], routes: [{ path: '/ip', upstream, policies: ['office-network'] }] }),
      });
      token = (await issueTokens(gw.url)).access_token;
    });
    afterAll(() => gw.close());

    it.each([
      ['an allowed client behind the load balancer', '10.1.2.3', 200],
      ['an allowed IPv6 client', '2001:db8::7', 200],
      ['an address the first rule denies, though a later one allows it', '10.0.66.9', 403],
      ['an address no rule matches (the default)', '203.0.113.9', 403],
      ['a chain of trusted proxies, read right to left', '10.1.2.3, 192.168.50.7', 200],
      ['a forged allowed address to the left of the real client', '10.1.2.3, 203.0.113.9', 403],
      ['a forged allowed address behind a trusted hop', '10.1.2.3, 203.0.113.9, 192.168.50.7', 403],
      ['an entry with a port', '[2001:db8::7]:443', 200],
      ['an IPv4-mapped IPv6 address', '::ffff:10.1.2.3', 200],
      ['garbage: the last address we can vouch for (the proxy) stands', 'not-an-address', 403],
    ])('%s (%s) -> %i', async (_case, forwardedFor, status) => {
      const response = await from(forwardedFor);
      if (status === 403) await expectForbidden(response);
      else expect(response.status).toBe(status);
    });

    it('passes a trusted proxy X-Forwarded-Proto through to the upstream', async () => {
      await fetch(`${gw.url}/ip/x`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '10.1.2.3', 'x-forwarded-proto': 'https' } });
      expect(gw.upstream.seen.at(-1)?.headers['x-forwarded-proto']).toBe('https');
    });
  });
});
