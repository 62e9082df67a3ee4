import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGateway, issueTokens, type TestGateway } from '../helpers/gateway.js';

/**
 * A parent route with no policy and a nested route behind an ip-range that
 * lets one foreign address in: the loopback client may use the parent, never
 * the nested route's upstream path, however the path is spelt.
 */

/** The raw request target, unnormalised (fetch and WHATWG URL would resolve or strip some of these spellings). */
function statusOf(url: string, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = request({ hostname, port, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a nested route with a stricter policy', () => {
  let tg: TestGateway;
  let token: string;
  beforeAll(async () => {
    tg = await bootGateway({
      config: (upstream) => ({
        routes: [
          { path: '/business/score/v2/', upstream },
          { path: '/business/score/v2/admin/', upstream, policies: ['admin-network'] },
        ],
      }),
      policies: { admin: { policies: [{ name: 'admin-network', kind: 'ip-range', rules: [{ allow: '192.0.2.10' }], default: 'deny' }] } },
    });
    token = (await issueTokens(tg.url)).access_token;
  });
  afterAll(() => tg.close());

  it('serves the parent route and refuses the nested one to an address outside its range', async () => {
    expect(await statusOf(tg.url, '/business/score/v2/directors', token)).toBe(200);
    expect(await statusOf(tg.url, '/business/score/v2/admin/x', token)).toBe(403);
    expect(await statusOf(tg.url, '/business/score/v2/admin', token)).toBe(403);
  });

  // Each spelling is one an upstream somewhere resolves to /business/score/v2/admin/x.
  it.each([
    ['an empty segment (nginx merges slashes)', '/business/score/v2//admin/x'],
    ['empty segments inside the nested path', '/business/score/v2/admin//x'],
    ['a leading empty segment', '//business/score/v2/admin/x'],
    ['an empty parameter (Tomcat, Spring)', '/business/score/v2/admin;/x'],
    ['a session parameter (Tomcat, Spring)', '/business/score/v2/admin;jsessionid=1/x'],
    ['a parameter on an earlier segment', '/business/score/v2;v=1/admin/x'],
    ['an encoded parameter', '/business/score/v2/admin%3Bx/x'],
    ['a dot segment', '/business/score/v2/x/../admin/x'],
    ['an encoded dot segment', '/business/score/v2/x/%2e%2e/admin/x'],
    ['a dot-parameter segment', '/business/score/v2/x/..;/admin/x'],
    ['an encoded slash', '/business/score/v2%2fadmin/x'],
    ['a backslash', '/business/score/v2\\admin/x'],
    ['a fragment', '/business/score/v2/admin#/x'],
    ['other letter case (IIS, case-insensitive routers)', '/business/score/v2/ADMIN/x'],
    ['other letter case on the prefix itself', '/business/score/v2/Admin'],
  ])('refuses %s with 400 before the upstream sees it: %s', async (_name, path) => {
    const before = tg.upstream.seen.length;
    expect(await statusOf(tg.url, path, token)).toBe(400);
    expect(tg.upstream.seen.length).toBe(before);
  });

  it('still routes percent-encoded letters to the route they spell, under its policies', async () => {
    expect(await statusOf(tg.url, '/business/score/v2/%61dmin/x', token)).toBe(403);
  });
});
