import { execFile, spawn } from 'node:child_process';
import { mkdtemp, open, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, beforeAll } from 'vitest';
import { stringify } from 'yaml';
import { accountsYaml } from '../../helpers/accounts.js';
import { eventually } from '../../helpers/eventually.js';
import { selfSignedCertificate } from '../../helpers/tls-certificates.js';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { BIN, runCli } from '../../helpers/processes.js';


/**
 * `token-gateway serve` and the signals it is sent while it starts. The
 * start is held at a known point by naming a FIFO as the TLS certificate:
 * reading it blocks until the test writes the certificate in.
 */
describe('serve while it starts', () => {
  let dir: string | undefined;
  let stopChild: (() => void) | undefined;

  afterEach(async () => {
    stopChild?.();
    stopChild = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('survives a SIGHUP that arrives before it listens, and reloads once it does', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-serve-start-'));
    const certificate = await selfSignedCertificate(dir, 'gateway');
    const fifo = join(dir, 'held.pem');
    await promisify(execFile)('mkfifo', [fifo]);
    await writeFile(join(dir, 'accounts.yaml'), await accountsYaml());
    await writeFile(
      join(dir, 'gateway.yaml'),
      stringify({
        listen: { host: '127.0.0.1', port: 0 },
        admin: { port: 0 },
        accounts: './accounts.yaml',
        tls: { host: '127.0.0.1', port: 0, cert_file: './held.pem', key_file: certificate.key },
      }),
    );
    const child = spawn(process.execPath, [BIN, 'serve', '--config', join(dir, 'gateway.yaml')], { stdio: ['ignore', 'pipe', 'pipe'] });
    stopChild = () => child.kill('SIGKILL');
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const lines = () => stdout.split('\n').flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as Record<string, unknown>] : []));

    // Opening the FIFO for writing returns once the gateway has opened it to read: it is mid-start.
    const writer = await open(fifo, 'w');
    child.kill('SIGHUP');
    // Later reads (the reload) find an ordinary file; the start goes on reading the FIFO it opened.
    await rename(certificate.cert, fifo);
    await writer.writeFile(certificate.pem);
    await writer.close();

    const outcome = await Promise.race([
      exited.then((exit) => `exited (${exit.signal ?? exit.code})`),
      eventually(() => lines().some((line) => line.msg === 'configuration reloaded' && line.reason === 'SIGHUP'), { timeoutMs: 15_000 }).then(
        () => 'reloaded',
        () => 'no reload logged',
      ),
    ]);
    expect(outcome).toBe('reloaded');
    expect(lines().some((line) => line.msg === 'token-gateway listening')).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  });
});

async function configWorkspace(gatewayYaml: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tg-cli-'));
  await writeFile(join(dir, 'accounts.yaml'), await accountsYaml());
  await writeFile(join(dir, 'gateway.yaml'), gatewayYaml);
  return join(dir, 'gateway.yaml');
}

describe('token-gateway serve', () => {
  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` (npm test does it)`);
  });

  it('serves on --port and stops cleanly on SIGTERM', async () => {
    const file = await configWorkspace('listen: { host: 127.0.0.1, port: 1 }\nadmin: { port: 0 }\naccounts: ./accounts.yaml\n');
    const child = spawn(process.execPath, [BIN, 'serve', '--config', file, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((found, failed) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /"url":"(http:\/\/[^"]+)"/.exec(out);
        if (match) found(match[1]!);
      });
      child.on('close', (code) => failed(new Error(`exited ${code} before listening`)));
    });
    const response = await fetch(`${url}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const exited = new Promise<number | null>((done) => child.on('close', done));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('exits 1 with the problem when the config is invalid', async () => {
    const file = await configWorkspace('listen: { prot: 1 }\n');
    const { code, stderr } = await runCli(['serve', '--config', file]);
    expect(code).toBe(1);
    expect(stderr).toContain('listen.prot: unknown key');
  });

  it('names the listener and the key to change when its port is taken (a second gateway on the host)', async () => {
    const taken = createServer();
    await new Promise<void>((listening) => taken.listen(0, '127.0.0.1', listening));
    const { port } = taken.address() as AddressInfo;
    try {
      for (const [yaml, key] of [
        [`listen: { host: 127.0.0.1, port: 0 }\nadmin: { port: ${port} }\n`, 'admin.port'],
        [`listen: { host: 127.0.0.1, port: ${port} }\nadmin: { port: 0 }\n`, 'listen.port'],
      ] as const) {
        const file = await configWorkspace(`${yaml}accounts: ./accounts.yaml\n`);
        const { code, stderr } = await runCli(['serve', '--config', file]);
        expect(code).toBe(1);
        expect(stderr).toContain(`${key}: ${port}): EADDRINUSE: another process listens there`);
        expect(stderr).toContain(`choose another ${key}`);
      }
    } finally {
      taken.close();
    }
  });

  it('refuses to start on Redis without a key-encryption key, and says how to make one', async () => {
    const file = await configWorkspace('environment: uat\nstore: redis://127.0.0.1:1/0\naccounts: ./accounts.yaml\n');
    const { code, stderr } = await runCli(['serve', '--config', file]);
    expect(code).toBe(1);
    expect(stderr).toContain('set TOKEN_GATEWAY_KEY_ENCRYPTION_KEY to 32 random bytes in base64');
    expect(stderr).toContain('openssl rand -base64 32');
  });

  it('refuses to start when the Redis password variable it names is unset', async () => {
    const file = await configWorkspace(
      'environment: uat\nstore: { redis: { url: "redis://127.0.0.1:1/0", password_env: TG_TEST_UNSET_PASSWORD } }\n' +
        'keys: { encryption_key_file: ./kek }\naccounts: ./accounts.yaml\n',
    );
    await writeFile(join(dirname(file), 'kek'), randomBytes(32).toString('base64'));
    const { code, stderr } = await runCli(['serve', '--config', file]);
    expect(code).toBe(1);
    expect(stderr).toContain('store.redis.password_env names TG_TEST_UNSET_PASSWORD, which is not set');
  });
});
