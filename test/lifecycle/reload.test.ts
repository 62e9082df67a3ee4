import { mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { hashSecret } from '../../src/accounts/secret-hash.js';
import { accountsYaml, APP, USER } from '../helpers/accounts.js';
import { bootGateway, callProtected, issueTokens, passwordGrant, type PolicyFile, type TestGateway } from '../helpers/gateway.js';
import { GatewayProcess } from '../helpers/gateway-process.js';
import { startHeldUpstream, type HeldUpstream } from '../helpers/held-upstream.js';
import { eventually } from '../helpers/eventually.js';

const NEW_USER = { username: 'newcomer', password: 'newcomer-password-1' };

const guard: PolicyFile = { policies: [{ name: 'guard', kind: 'regex-protection', builtin: [], patterns: [{ name: 'blocked-word', pattern: 'forbidden' }] }] };

/** accounts.yaml with the test accounts and one more user, hashed as `hash-secret` would. */
async function accountsWithNewUser(): Promise<string> {
  const accounts = parse(await accountsYaml()) as { users: Array<Record<string, string>> };
  accounts.users.push({ username: NEW_USER.username, password_hash: await hashSecret(NEW_USER.password), status: 'active' });
  return stringify(accounts);
}

/** Written aside and renamed over, as editors and config tooling do. */
async function replaceFile(file: string, text: string): Promise<void> {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

/**
 * Reload of gateway.yaml and accounts.yaml (src/ops/reload.ts): validated
 * whole before anything changes, applied atomically between requests,
 * restart-only keys kept at their running value with a warning.
 */
describe('configuration reload on a file change (the watcher)', () => {
  let gw: TestGateway;
  const linesOf = (reason: string) => gw.logs.filter((line) => line.reason === reason);
  beforeAll(async () => {
    gw = await bootGateway();
  });
  afterAll(() => gw.close());

  it('picks up a new user when accounts.yaml changes, without SIGHUP or restart', async () => {
    expect((await passwordGrant(gw.url, NEW_USER)).status).toBe(401);
    await replaceFile(join(gw.dir, 'accounts.yaml'), await accountsWithNewUser());
    await eventually(async () => (await passwordGrant(gw.url, NEW_USER)).status === 200);
    expect((await passwordGrant(gw.url)).status).toBe(200);
    const reloaded = linesOf('files changed').find((line) => line.msg === 'configuration reloaded');
    const before = parse(await accountsYaml()) as { users: unknown[]; apps: unknown[] };
    expect(reloaded).toMatchObject({
      level: 30,
      users: before.users.length + 1,
      apps: before.apps.length,
      usersChanged: { added: 1, removed: 0, changed: 0 },
      appsChanged: { added: 0, removed: 0, changed: 0 },
      changed: ['accounts.yaml'],
    });
    expect(gw.rawLogs.join('\n')).not.toContain(NEW_USER.password);
  });
});

/** Reloads the tests ask for themselves, with the watcher off: its reload of the same edit would race theirs. */
describe('configuration reload', () => {
  let gw: TestGateway;
  let held: HeldUpstream;
  let token: string;
  let config: Record<string, unknown>;

  const writeConfig = (changes: Record<string, unknown>) => replaceFile(join(gw.dir, 'gateway.yaml'), stringify({ ...config, ...changes }));
  const linesOf = (reason: string) => gw.logs.filter((line) => line.reason === reason);

  beforeAll(async () => {
    held = await startHeldUpstream();
    gw = await bootGateway({
      watchConfig: false,
      policies: { guard },
      config: (upstream) => {
        config = {
          listen: { host: '127.0.0.1', port: 0 },
          admin: { host: '127.0.0.1', port: 0 },
          accounts: './accounts.yaml',
          routes: [
            { path: '/business/score/v2/', upstream, timeout: '2s' },
            { path: '/held/', upstream: held.url, timeout: '10s' },
          ],
        };
        return config;
      },
    });
    token = (await issueTokens(gw.url)).access_token;
  });
  // Whatever a test left behind (a failed one included), the next starts from valid files.
  afterEach(async () => {
    await writeConfig({});
    await replaceFile(join(gw.dir, 'accounts.yaml'), await accountsWithNewUser());
    expect((await gw.gateway.reload('test: files restored')).ok).toBe(true);
  });
  afterAll(async () => {
    await gw.close();
    await held.close();
  });


  it('serves a route added to gateway.yaml at once, with the policies it names', async () => {
    expect((await callProtected(gw.url, token, '/business/other/v1/x')).status).toBe(404);
    await writeConfig({ routes: [...(config.routes as object[]), { path: '/business/other/v1/', upstream: gw.upstream.url, policies: ['guard'] }] });
    const outcome = await gw.gateway.reload('test: new route');
    expect(outcome).toEqual({ ok: true, changed: ['routes'], needsRestart: [] });
    expect((await callProtected(gw.url, token, '/business/other/v1/x')).status).toBe(200);
    expect((await callProtected(gw.url, token, '/business/other/v1/x?q=forbidden')).status).toBe(401);
    expect(gw.upstream.seen.at(-1)?.url).toBe('/business/other/v1/x');
    await writeConfig({});
    expect((await gw.gateway.reload('test: route removed')).ok).toBe(true);
    expect((await callProtected(gw.url, token, '/business/other/v1/x')).status).toBe(404);
  });

  it('lets a request in flight finish with the configuration it started with', async () => {
    const inFlight = callProtected(gw.url, token, '/held/a');
    await eventually(() => held.held === 1);
    // A new body limit also means a new forwarding engine: the one in use stays open for the request it carries.
    await writeConfig({ routes: [(config.routes as object[])[0]], limits: { body_size: '2mb' } });
    expect((await gw.gateway.reload('test: held route removed')).ok).toBe(true);
    expect((await callProtected(gw.url, token, '/held/b')).status).toBe(404);
    held.release();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { url: string }).url).toBe('/held/a');
    await writeConfig({});
    expect((await gw.gateway.reload('test: held route back')).ok).toBe(true);
  });

  it('refuses an invalid accounts.yaml with one error per problem, and the running accounts keep working', async () => {
    const valid = await accountsWithNewUser();
    await replaceFile(join(gw.dir, 'accounts.yaml'), valid.replace(/password_hash: \S+/, 'password_hash: plain-text').replace('status: suspended', 'status: ""'));
    const outcome = await gw.gateway.reload('test: bad accounts');
    expect(outcome.ok).toBe(false);
    const issues = (outcome as { issues: readonly string[] }).issues;
    expect(issues).toEqual([
      expect.stringMatching(/accounts\.yaml:\d+: users\[0\]\.password_hash: expected an argon2id PHC string/),
      expect.stringMatching(/accounts\.yaml:\d+: users\[\d+\]\.status: /),
    ]);
    await eventually(() => linesOf('test: bad accounts').length === 2);
    expect(linesOf('test: bad accounts').map((line) => [line.level, line.issue])).toEqual(issues.map((issue) => [50, issue]));
    expect((await passwordGrant(gw.url)).status).toBe(200);
    expect((await passwordGrant(gw.url, NEW_USER)).status).toBe(200);
    await replaceFile(join(gw.dir, 'accounts.yaml'), valid);
    expect((await gw.gateway.reload('test: accounts fixed')).ok).toBe(true);
  });

  it('refuses an invalid gateway.yaml (or one naming an unknown policy), and the running config stays', async () => {
    await writeConfig({ routes: [{ path: '/business/score/v2/', upstream: 'ftp://example.com' }], limits: { body_size: 'huge' } });
    const outcome = await gw.gateway.reload('test: bad config');
    expect(outcome.ok).toBe(false);
    const issues = (outcome as { issues: readonly string[] }).issues;
    expect(issues).toHaveLength(2);
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/gateway\.yaml:\d+: limits\.body_size: expected a size like 16kb or 1mb, got "huge"/),
        expect.stringMatching(/gateway\.yaml:\d+: routes\[0\]\.upstream: expected an http:\/\/ or https:\/\/ URL/),
      ]),
    );
    await writeConfig({ policies: { defaults: ['no-such-policy'] } });
    expect(await gw.gateway.reload('test: unknown policy')).toEqual({
      ok: false,
      issues: [expect.stringMatching(/gateway\.yaml:\d+: policies\.defaults\[0\]: unknown policy "no-such-policy" \(defined: guard\)/)],
    });
    expect((await callProtected(gw.url, token)).status).toBe(200);
    expect((await callProtected(gw.url, token, '/business/score/v2/x?q=forbidden')).status).toBe(200);
    await writeConfig({});
    expect((await gw.gateway.reload('test: config fixed')).ok).toBe(true);
  });

  it('refuses an empty file, which is an editor caught mid-write far more often than an intent', async () => {
    await writeFile(join(gw.dir, 'accounts.yaml'), '');
    expect(await gw.gateway.reload('test: empty accounts')).toEqual({
      ok: false,
      issues: [expect.stringMatching(/accounts\.yaml: the file is empty \(a write still in progress\?\)/)],
    });
    expect((await passwordGrant(gw.url)).status).toBe(200);
    await replaceFile(join(gw.dir, 'accounts.yaml'), await accountsWithNewUser());
    expect((await gw.gateway.reload('test: accounts back')).ok).toBe(true);
  });

  it('warns about a changed restart-only key, keeps its running value, and applies the rest', async () => {
    await writeConfig({ listen: { host: '127.0.0.1', port: 1 }, tokens: { access_ttl: '5m' }, limits: { body_size: '64b' } });
    const outcome = await gw.gateway.reload('test: restart-only');
    expect(outcome).toEqual({ ok: true, changed: ['limits.body_size'], needsRestart: ['listen.port', 'tokens.access_ttl'] });
    await eventually(() => linesOf('test: restart-only').filter((line) => line.level === 40).length === 2);
    expect(linesOf('test: restart-only').filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
      'listen.port needs a restart; the running value stays',
      'tokens.access_ttl needs a restart; the running value stays',
    ]);
    expect((await issueTokens(gw.url)).expires_in).toBe('1800');
    expect(gw.gateway.context.config.listen.port).toBe(0);
    const big = await fetch(`${gw.url}/business/score/v2/x`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: 'x'.repeat(100) });
    expect(big.status).toBe(413);
    await writeConfig({});
    expect(await gw.gateway.reload('test: restart-only undone')).toEqual({ ok: true, changed: ['limits.body_size'], needsRestart: [] });
  });

  it('applies app policies of accounts.yaml and the log level without a restart', async () => {
    const withPolicy = (await accountsWithNewUser()).replace(`client_id: ${APP.client_id}`, `client_id: ${APP.client_id}\n    policies: [guard]`);
    await replaceFile(join(gw.dir, 'accounts.yaml'), withPolicy);
    await writeConfig({ log: { level: 'warn' } });
    expect((await gw.gateway.reload('test: app policy')).ok).toBe(true);
    expect((await callProtected(gw.url, token, '/business/score/v2/x?q=forbidden')).status).toBe(401);
    const before = gw.logs.length;
    expect((await callProtected(gw.url, token)).status).toBe(200);
    expect(gw.logs.slice(before).filter((line) => line.msg === 'request')).toEqual([]);
    await writeConfig({});
    await replaceFile(join(gw.dir, 'accounts.yaml'), await accountsWithNewUser());
    expect((await gw.gateway.reload('test: app policy removed')).ok).toBe(true);
    expect((await callProtected(gw.url, token, '/business/score/v2/x?q=forbidden')).status).toBe(200);
  });
});

describe('SIGHUP on a running gateway process', () => {
  let proc: GatewayProcess;
  let dir: string;

  beforeAll(async () => {
    // accounts.yaml is a link to a file in another folder, edited in place: no watcher sees that, only SIGHUP does
    // (as on mounts without inotify).
    dir = await mkdtemp(join(tmpdir(), 'tg-sighup-'));
    await writeFile(join(dir, 'real-accounts.yaml'), await accountsYaml());
    await symlink(join(dir, 'real-accounts.yaml'), join(dir, 'accounts.yaml'));
    proc = await GatewayProcess.start({ accounts: join(dir, 'accounts.yaml') });
  });
  afterAll(async () => {
    await proc.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('picks up a new user', async () => {
    expect((await passwordGrant(proc.url, NEW_USER)).status).toBe(401);
    await writeFile(join(dir, 'real-accounts.yaml'), await accountsWithNewUser());
    proc.signal('SIGHUP');
    await eventually(async () => (await passwordGrant(proc.url, NEW_USER)).status === 200);
    await eventually(() => proc.lines.some((line) => line.msg === 'configuration reloaded' && line.reason === 'SIGHUP'));
    expect((await passwordGrant(proc.url, { username: USER.username, password: USER.password })).status).toBe(200);
    expect(proc.alive).toBe(true);
  });
});
