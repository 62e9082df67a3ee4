import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { stringify } from 'yaml';
import { afterEach, beforeEach } from 'vitest';
import { run } from '../../src/cli/run.js';
import { APP, USER } from './accounts.js';
import { bootGateway, issueTokens, type TestGateway } from './gateway.js';

/**
 * The admin commands run in-process through run(), as `token-gateway ...`
 * would, against a real gateway's admin listener.
 */

export interface Outcome {
  code: number | 'running';
  stdout: string;
  stderr: string;
}

export async function cli(...args: string[]): Promise<Outcome> {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const text = { stdout: '', stderr: '' };
  stdout.on('data', (chunk: Buffer) => (text.stdout += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (text.stderr += chunk.toString()));
  const code = await run(args, { stdin: Readable.from([]), stdout, stderr });
  return { code, ...text };
}

export const TOKEN = randomBytes(32).toString('base64');
/** The folder of the CLI's gateway.yaml files and of the admin token file (TOKEN); made in beforeAll, removed in afterAll. */
export const folder = { dir: '', tokenFile: '' };
export async function makeFolder(): Promise<void> {
  folder.dir = await mkdtemp(join(tmpdir(), 'tg-admin-cli-'));
  folder.tokenFile = join(folder.dir, 'admin-token');
  await writeFile(folder.tokenFile, TOKEN);
}
export const removeFolder = () => rm(folder.dir, { recursive: true, force: true });

/** A gateway.yaml for the CLI naming the running gateway's admin port (and a token file, when given). */
export async function cliConfig(tg: TestGateway, admin: { host?: string; token_file?: string } = {}): Promise<string> {
  const port = Number(new URL(tg.gateway.adminUrl!).port);
  const file = join(folder.dir, `gateway-${randomBytes(4).toString('hex')}.yaml`);
  await writeFile(file, stringify({ admin: { host: '127.0.0.1', port, ...admin } }));
  return file;
}

export const login = (tg: TestGateway, user = USER, app = APP) => issueTokens(tg.url, { username: user.username, password: user.password, ...app });

export async function configWithoutToken(): Promise<string> {
  const file = join(folder.dir, 'plain.yaml');
  await writeFile(file, 'admin:\n  host: 127.0.0.1\n');
  return file;
}

/**
 * A fresh gateway for each test of the enclosing block, and a CLI config
 * file that reaches its admin listener; closed after each test.
 */
export function gatewayForCli(options: Parameters<typeof bootGateway>[0] = {}): { readonly tg: TestGateway; readonly config: string } {
  let booted: { tg: TestGateway; config: string } | undefined;
  beforeEach(async () => {
    const tg = await bootGateway(options);
    booted = { tg, config: await cliConfig(tg) };
  });
  afterEach(() => booted?.tg.close());
  const current = () => {
    if (!booted) throw new Error('the gateway is booted in beforeEach: use it inside a test');
    return booted;
  };
  return {
    get tg() {
      return current().tg;
    },
    get config() {
      return current().config;
    },
  };
}
