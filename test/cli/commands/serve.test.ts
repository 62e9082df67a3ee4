import { execFile, spawn } from 'node:child_process';
import { mkdtemp, open, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { accountsYaml } from '../../helpers/accounts.js';
import { eventually } from '../../helpers/eventually.js';
import { selfSignedCertificate } from '../../helpers/tls-certificates.js';

const BIN = resolve('dist/cli/main.js');

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
