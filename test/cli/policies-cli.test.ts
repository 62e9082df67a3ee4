import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accountsYaml } from '../helpers/accounts.js';
import { eventually } from '../helpers/eventually.js';

const BIN = resolve('dist/cli/main.js');

async function workspace(gatewayYaml: string, policies: Record<string, string>, appPolicies: Record<string, string[]> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tg-policies-cli-'));
  await writeFile(join(dir, 'accounts.yaml'), await accountsYaml(appPolicies));
  await writeFile(join(dir, 'gateway.yaml'), gatewayYaml);
  await mkdir(join(dir, 'policies'));
  for (const [name, text] of Object.entries(policies)) await writeFile(join(dir, 'policies', name), text);
  return dir;
}

function check(dir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, 'check', '--config', join(dir, 'gateway.yaml')], { stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const GUARD = 'policies:\n  - name: guard\n    kind: regex-protection\n';

describe('token-gateway check: policies', () => {
  it('counts the policies of a valid folder', async () => {
    const dir = await workspace('accounts: ./accounts.yaml\npolicies:\n  defaults: [guard]\n', { 'guard.yaml': GUARD, 'README.md': '# not a policy file' });
    const { code, stdout } = await check(dir);
    expect(code).toBe(0);
    expect(stdout).toContain('(1 policies)');
  });

  it.each([
    ['an unknown kind', { 'a.yaml': 'policies:\n  - name: a\n    kind: rate-limit\n' }, /a\.yaml:3: policies\[0\]\.kind: unknown kind "rate-limit"; expected one of regex-protection, json-threat, spike-arrest, ip-range, time-of-day/],
    ['an unknown key', { 'a.yaml': 'policies:\n  - name: a\n    kind: spike-arrest\n    rate: 5ps\n    rat: 6ps\n' }, /a\.yaml:5: policies\[0\]\.rat: unknown key/],
    ['a mode that is neither enforce nor report', { 'a.yaml': 'policies:\n  - name: a\n    kind: spike-arrest\n    rate: 5ps\n    mode: shadow\n' }, /a\.yaml:5: policies\[0\]\.mode: expected enforce or report, got "shadow"/],
    ['a bad rate', { 'a.yaml': 'policies:\n  - name: a\n    kind: spike-arrest\n    rate: 5 per second\n' }, /a\.yaml:4: policies\[0\]\.rate: expected a rate like 30ps or 600pm/],
    ['a pattern RE2 cannot run', { 'a.yaml': 'policies:\n  - name: a\n    kind: regex-protection\n    patterns:\n      - { name: p, pattern: "(a)\\\\1" }\n' }, /a\.yaml:5: policies\[0\]\.patterns\[0\]\.pattern: /],
    ['a bad time zone', { 'a.yaml': 'policies:\n  - name: a\n    kind: time-of-day\n    time_zone: Mars/Olympus\n    windows: [{ days: [mon], from: "08:00", to: "09:00" }]\n' }, /a\.yaml:4: policies\[0\]\.time_zone: /],
    ['a name defined twice', { 'a.yaml': GUARD, 'b.yaml': GUARD }, /b\.yaml:2: policies\[0\]\.name: "guard" is already defined in .*a\.yaml/],
    ['invalid YAML', { 'a.yaml': 'policies: [\n' }, /a\.yaml:\d+: /],
  ])('exits 1 for %s, naming file, line, key and problem', async (_case, files, expected) => {
    const { code, stderr } = await check(await workspace('accounts: ./accounts.yaml\n', files));
    expect(code).toBe(1);
    expect(stderr).toMatch(expected);
  });

  it('exits 1 for a route, default, endpoint or app naming a policy that does not exist', async () => {
    const gateway = [
      'accounts: ./accounts.yaml',
      'policies:',
      '  defaults: [guard, missing-default]',
      '  endpoints:',
      '    /oauth2/v1/token: [missing-endpoint]',
      'routes:',
      '  - { path: /a, upstream: "http://127.0.0.1:9", policies: [missing-route] }',
      '',
    ].join('\n');
    const dir = await workspace(gateway, { 'guard.yaml': GUARD }, { 'app-one': ['missing-app'] });
    const { code, stderr } = await check(dir);
    expect(code).toBe(1);
    expect(stderr).toMatch(/gateway\.yaml:3: policies\.defaults\[1\]: unknown policy "missing-default" \(defined: guard\)/);
    expect(stderr).toMatch(/gateway\.yaml:5: policies\.endpoints\.\/oauth2\/v1\/token\[0\]: unknown policy "missing-endpoint"/);
    expect(stderr).toMatch(/gateway\.yaml:7: routes\[0\]\.policies\[0\]: unknown policy "missing-route"/);
    expect(stderr).toMatch(/accounts\.yaml:\d+: apps\[0\]\.policies\[0\]: unknown policy "missing-app"/);
  });
});

describe('token-gateway serve: SIGHUP', () => {
  it('reloads the policies folder on SIGHUP', async () => {
    const dir = await workspace('listen: { host: 127.0.0.1, port: 0 }\nadmin: { port: 0 }\naccounts: ./accounts.yaml\npolicies:\n  defaults: [guard]\n', {
      'guard.yaml': 'policies:\n  - { name: guard, kind: regex-protection, builtin: [], patterns: [{ name: w, pattern: first }] }\n',
    });
    const child = spawn(process.execPath, [BIN, 'serve', '--config', join(dir, 'gateway.yaml')], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await eventually(() => /"url":"http/.test(out));
      const url = /"url":"(http:\/\/[^"]+)"/.exec(out)?.[1] as string;
      expect((await fetch(`${url}/oauth2/v1/keys?w=first`)).status).toBe(401);
      // The watcher would see this too; SIGHUP is for tooling that edits without inotify (NFS, some mounts).
      await writeFile(join(dir, 'policies', 'guard.yaml'), 'policies:\n  - { name: guard, kind: regex-protection, builtin: [], patterns: [{ name: w, pattern: second }] }\n');
      child.kill('SIGHUP');
      await eventually(async () => (await fetch(`${url}/oauth2/v1/keys?w=second`)).status === 401);
      expect((await fetch(`${url}/oauth2/v1/keys?w=first`)).status).toBe(200);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
    }
  });
});
