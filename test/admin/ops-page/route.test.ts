import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OPS_CSP } from '../../../src/admin/ops-page/route.js';
import { bootGateway, type TestGateway } from '../../helpers/gateway.js';

/**
 * GET /ops and the reads it makes, over HTTP: the page follows the admin
 * API's access rule, holds no data of its own, and is served with a CSP that
 * allows nothing but this origin. The browser test (browser.test.ts) drives it.
 */

const TOKEN = randomBytes(32).toString('base64');
const READS = ['/admin/v1/keys', '/admin/v1/policies', '/admin/v1/refusals/recent', '/admin/v1/traffic', '/admin/v1/status'];
const ASSETS = ['/ops', '/ops/ops.js', '/ops/ops.css'];
let dir: string;
let tokenFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tg-ops-page-'));
  tokenFile = join(dir, 'admin-token');
  await writeFile(tokenFile, `${TOKEN}\n`);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

let tg: TestGateway | undefined;
afterEach(async () => {
  await tg?.close();
  tg = undefined;
});

const networkAddress = (): string =>
  Object.values(networkInterfaces())
    .flat()
    .find((info) => info && info.family === 'IPv4' && !info.internal)?.address ?? '0.0.0.0';

const get = (url: string, token?: string) => fetch(url, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

describe('GET /ops', () => {
  it('serves the page, its script and its style with a CSP that allows only this origin, and no data in them', async () => {
    tg = await bootGateway();
    const admin = tg.gateway.adminUrl!;
    const kids = ((await (await fetch(`${tg.url}/oauth2/v1/keys`)).json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);
    for (const [path, type] of [['/ops', 'text/html'], ['/ops/ops.js', 'text/javascript'], ['/ops/ops.css', 'text/css']] as const) {
      const response = await get(`${admin}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
      expect(response.headers.get('content-security-policy')).toBe(OPS_CSP);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const text = await response.text();
      for (const kid of kids) expect(text).not.toContain(kid);
    }
    expect(OPS_CSP).toMatch(/default-src 'none'/);
    expect(OPS_CSP).toMatch(/script-src 'self'(;|$)/);
    expect(OPS_CSP).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  });

  it('builds the page from text only: the script never writes markup', async () => {
    tg = await bootGateway();
    const script = await (await get(`${tg.gateway.adminUrl}/ops/ops.js`)).text();
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    const page = await (await get(`${tg.gateway.adminUrl}/ops`)).text();
    expect(page).not.toMatch(/<script>|<style>|\sstyle="|\son[a-z]+="/);
    expect(page).not.toMatch(/https?:\/\//);
  });

  it('is not served on the client listener', async () => {
    tg = await bootGateway();
    expect((await fetch(`${tg.url}/ops`)).status).toBe(404);
    expect((await fetch(`${tg.url}/admin/v1/keys`)).status).toBe(404);
  });

  describe('with admin.token_file', () => {
    it('serves the page, which asks for the token, to a request without one; every read it makes is 401 without it', async () => {
      tg = await bootGateway({ config: { admin: { host: '127.0.0.1', port: 0, token_file: tokenFile } } });
      const admin = tg.gateway.adminUrl!;
      const page = await get(`${admin}/ops`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('id="login"');
      for (const path of READS) {
        const answer = await get(`${admin}${path}`);
        expect([path, answer.status, await answer.json()]).toEqual([path, 401, { error: 'admin token missing or wrong' }]);
      }
    });

    it('refuses the page and every read with 401 and no data to a wrong token, and serves them to the right one', async () => {
      tg = await bootGateway({ config: { admin: { host: '127.0.0.1', port: 0, token_file: tokenFile } } });
      const admin = tg.gateway.adminUrl!;
      for (const path of [...ASSETS, ...READS]) {
        const wrong = await get(`${admin}${path}`, 'not-the-admin-token');
        expect([path, wrong.status, await wrong.json()]).toEqual([path, 401, { error: 'admin token missing or wrong' }]);
        expect([path, (await get(`${admin}${path}`, TOKEN)).status]).toEqual([path, 200]);
      }
    });
  });

  it('is off, as the admin API is, on a listener reachable from the network without admin.token_file', async () => {
    tg = await bootGateway({ config: { admin: { host: networkAddress(), port: 0 } } });
    const admin = tg.gateway.adminUrl!;
    for (const path of [...ASSETS, ...READS]) {
      const answer = await get(`${admin}${path}`);
      expect([path, answer.status]).toEqual([path, 403]);
      expect(((await answer.json()) as { error: string }).error).toContain('admin.token_file');
    }
  });
});
