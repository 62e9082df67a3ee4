import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { adminCall } from '../helpers/admin.js';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';

/**
 * The admin API's access rule on real listeners: with admin.token_file every
 * operation needs that token; without it only a loopback listener serves
 * operations. The probes answer either way.
 */

const TOKEN = randomBytes(32).toString('base64');
let dir: string;
let tokenFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tg-admin-token-'));
  tokenFile = join(dir, 'admin-token');
  await writeFile(tokenFile, `${TOKEN}\n`);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

let tg: TestGateway | undefined;
afterEach(async () => {
  await tg?.close();
  tg = undefined;
});

/** This machine's first address that is not loopback; a wildcard listener is just as exposed when there is none. */
function networkAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((info) => info && info.family === 'IPv4' && !info.internal);
  return found?.address ?? '0.0.0.0';
}

const OPERATIONS: Array<['GET' | 'POST', string, Record<string, unknown>]> = [
  ['GET', '/admin/v1/grants', {}],
  ['POST', '/admin/v1/revocations', { username: 'alice' }],
  ['POST', '/admin/v1/keys/rotate', {}],
];

describe('admin API access rule', () => {
  describe('with admin.token_file', () => {
    for (const [method, path, input] of OPERATIONS) {
      it(`refuses ${method} ${path} with 401 without the token or with a wrong one, and serves it with the right one`, async () => {
        tg = await bootGateway({ config: { admin: { host: '127.0.0.1', port: 0, token_file: tokenFile } } });
        const url = tg.gateway.adminUrl;
        expect(await adminCall(url, method, path, input)).toMatchObject({ status: 401, body: { error: 'admin token missing or wrong' } });
        expect((await adminCall(url, method, path, input, 'not-the-admin-token')).status).toBe(401);
        expect((await adminCall(url, method, path, input, TOKEN)).status).toBe(200);
      });
    }

    it('takes a new token from the file on reload (SIGHUP), and keeps the current one when the file turns unusable', async () => {
      const ownFile = join(dir, 'rotated-admin-token');
      await writeFile(ownFile, `${TOKEN}\n`);
      tg = await bootGateway({ config: { admin: { host: '127.0.0.1', port: 0, token_file: ownFile } } });
      const url = tg.gateway.adminUrl;
      const grants = (token: string) => adminCall(url, 'GET', '/admin/v1/grants', {}, token).then((answer) => answer.status);

      const next = randomBytes(32).toString('base64');
      await writeFile(ownFile, `${next}\n`);
      await tg.gateway.reload('test');
      await eventually(async () => (await grants(next)) === 200);
      expect(await grants(TOKEN)).toBe(401);
      expect(tg.logs.some((line) => line.msg === 'admin token reloaded')).toBe(true);

      await writeFile(ownFile, 'too-short\n');
      await tg.gateway.reload('test');
      await eventually(() => tg!.logs.some((line) => line.msg === 'admin token not reloaded; the current one stays'));
      expect(await grants(next)).toBe(200);
      expect(await grants('too-short')).toBe(401);
      expect(tg.rawLogs.join('\n')).not.toContain(next);
    });

    it('serves operations on a listener reachable from the network', async () => {
      tg = await bootGateway({ config: { admin: { host: networkAddress(), port: 0, token_file: tokenFile } } });
      expect((await adminCall(tg.gateway.adminUrl, 'GET', '/admin/v1/grants', {}, TOKEN)).status).toBe(200);
    });
  });

  describe('without admin.token_file', () => {
    it('serves operations on loopback without a token', async () => {
      tg = await bootGateway();
      expect((await adminCall(tg.gateway.adminUrl, 'GET', '/admin/v1/grants')).status).toBe(200);
    });

    it('refuses every operation with 403 on a listener reachable from the network, saying why; the probes still answer', async () => {
      tg = await bootGateway({ config: { admin: { host: networkAddress(), port: 0 } } });
      const url = tg.gateway.adminUrl;
      for (const [method, path, input] of OPERATIONS) {
        const answer = await adminCall(url, method, path, input);
        expect(answer.status).toBe(403);
        expect(answer.body.error).toContain('admin.token_file');
      }
      expect((await fetch(`${url}/livez`)).status).toBe(200);
    });
  });
});
