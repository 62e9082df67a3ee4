import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { expect } from 'vitest';
import { hashSecret } from '../../src/accounts/secret-hash.js';
import { run } from '../../src/cli/run.js';

// The accounts commands (`users`, `apps`) run in-process on a workspace holding a commented accounts.yaml, as operators keep it.

export interface Outcome {
  code: number | 'running';
  stdout: string;
  stderr: string;
}

/** One command in-process, with stdin piped (not a terminal) as in `printf ... | token-gateway ...`; its output is readable while it runs. */
export function start(args: readonly string[], stdin = ''): { output: { stdout: string; stderr: string }; done: Promise<Outcome> } {
  const input = new PassThrough();
  input.end(stdin);
  const output = { stdout: '', stderr: '' };
  const sink = (stream: 'stdout' | 'stderr') =>
    new Writable({ write: (chunk: Buffer, _encoding, done) => ((output[stream] += chunk.toString()), done()) });
  const done = run(args, { stdin: input, stdout: sink('stdout'), stderr: sink('stderr') }).then((code) => ({ code, ...output }));
  return { output, done };
}

export const cli = (args: readonly string[], stdin = ''): Promise<Outcome> => start(args, stdin).done;

export const CAROL = { username: 'carol', password: 'carol-password-1' };
export const PORTAL = { client_id: 'partner-portal', client_secret: 'partner-portal-secret-0123456789' };
export const POLICY = 'policies:\n  - name: partner-guard\n    kind: regex-protection\n';

/** A commented accounts.yaml as operators keep it: block entries, a one-line app, blank lines, comments everywhere. */
let commented: Promise<string> | undefined;
export function commentedAccountsText(): Promise<string> {
  return (commented ??= makeCommentedAccountsText());
}

async function makeCommentedAccountsText(): Promise<string> {
  const [carol, portal] = await Promise.all([hashSecret(CAROL.password), hashSecret(PORTAL.client_secret)]);
  return [
    '# Staging accounts: edited by ops, reviewed in git.',
    '',
    'users:',
    '  # the partner team',
    '  - username: carol',
    `    password_hash: "${carol}"   # set 2024-05`,
    '    status: active',
    '',
    'apps:   # applications',
    `  - { client_id: partner-portal, client_secret_hash: "${portal}", status: active }  # one line each`,
    '# end of file',
    '',
  ].join('\n');
}

export interface Workspace {
  config: string;
  accounts: string;
  /** `--config <gateway.yaml>` */
  target: string[];
}

export const folders: string[] = [];
/** For afterAll: removes every workspace made so far. */
export const removeWorkspaces = () => Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));

export async function workspace(): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'tg-accounts-cli-'));
  folders.push(dir);
  await writeFile(join(dir, 'accounts.yaml'), await commentedAccountsText());
  await chmod(join(dir, 'accounts.yaml'), 0o640);
  await writeFile(join(dir, 'gateway.yaml'), 'accounts: ./accounts.yaml\npolicies:\n  folder: ./policies\n');
  await mkdir(join(dir, 'policies'));
  await writeFile(join(dir, 'policies', 'guard.yaml'), POLICY);
  const config = join(dir, 'gateway.yaml');
  return { config, accounts: join(dir, 'accounts.yaml'), target: ['--config', config] };
}

export async function expectCheckPasses(ws: Workspace): Promise<void> {
  const { code, stderr } = await cli(['check', '--config', ws.config]);
  expect(stderr).toBe('');
  expect(code).toBe(0);
}

/** Runs a command that must be refused: exit code, message, and the file byte for byte as it was. */
export async function expectRefused(ws: Workspace, args: readonly string[], stdin: string, code: number, message: string | RegExp): Promise<void> {
  const before = await readFile(ws.accounts);
  const outcome = await cli(args, stdin);
  expect(outcome.code).toBe(code);
  expect(outcome.stdout).toBe('');
  expect(outcome.stderr).toMatch(message);
  expect((await readFile(ws.accounts)).equals(before)).toBe(true);
}

export const base64url43 = /^[A-Za-z0-9_-]{43}$/;
