import { copyFile, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { StartupError } from '../../src/config/errors.js';
import { loadGatewayConfig } from '../../src/config/load.js';
import { startGateway } from '../../src/lifecycle/start.js';
import { accountsYaml, APP, USER } from '../helpers/accounts.js';
import { bootGateway, type TestGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/eventually.js';
import { selfSignedCertificate, type SelfSigned } from '../helpers/tls-certificates.js';
import { runCli } from '../helpers/processes.js';


/** An HTTPS exchange that trusts only `ca`. */
function httpsCall(url: string, ca: string[], init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { ca, method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end(init.body);
  });
}

/** The SHA-256 fingerprint of the certificate the listener serves to a new connection. */
function servedFingerprint(httpsUrl: string, ca: string[]): Promise<string> {
  const { hostname, port } = new URL(httpsUrl);
  return new Promise((done, fail) => {
    const socket = connect({ host: hostname, port: Number(port), ca }, () => {
      done(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on('error', fail);
  });
}

/** Replaces a file the way cert-manager and editors do: written aside, renamed over. */
async function replaceWith(source: string, target: string): Promise<void> {
  await copyFile(source, `${target}.tmp`);
  await rename(`${target}.tmp`, target);
}

/** The HTTPS listener (src/ops/tls-listener.ts): beside plain HTTP, its certificate reloaded when the files change. */
describe('HTTPS listener', () => {
  let certs: string;
  let first: SelfSigned;
  let second: SelfSigned;
  let trusted: string[];
  let gw: TestGateway;
  let httpsUrl: string;
  const live = { cert: '', key: '' };

  beforeAll(async () => {
    certs = await mkdtemp(join(tmpdir(), 'tg-tls-'));
    [first, second] = await Promise.all([selfSignedCertificate(certs, 'first'), selfSignedCertificate(certs, 'second')]);
    trusted = [first.pem, second.pem];
    live.cert = join(certs, 'live.pem');
    live.key = join(certs, 'live.key');
    await copyFile(first.cert, live.cert);
    await copyFile(first.key, live.key);
    gw = await bootGateway({ config: { tls: { host: '127.0.0.1', port: 0, cert_file: live.cert, key_file: live.key } } });
    httpsUrl = gw.gateway.httpsUrl as string;
  });
  afterAll(async () => {
    await gw.close();
    await rm(certs, { recursive: true, force: true });
  });

  it('serves the same gateway over HTTPS with the configured certificate, and says where at start', async () => {
    expect(httpsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(gw.logs.find((line) => line.msg === 'token-gateway listening')).toMatchObject({ httpsUrl, certificate: { fingerprint256: first.fingerprint256 } });
    expect(await servedFingerprint(httpsUrl, trusted)).toBe(first.fingerprint256);
    const token = await httpsCall(`${httpsUrl}/oauth2/v1/token`, trusted, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: USER.username, password: USER.password, ...APP }),
    });
    expect(token.status).toBe(200);
    const { access_token } = JSON.parse(token.body) as { access_token: string };
    const call = await httpsCall(`${httpsUrl}/business/score/v2/directors`, trusted, { headers: { authorization: `Bearer ${access_token}` } });
    expect(call.status).toBe(200);
    expect(gw.upstream.seen.at(-1)?.headers['x-forwarded-proto']).toBe('https');
  });

  it('keeps plain HTTP for local use behind a TLS-terminating balancer', async () => {
    expect((await fetch(`${gw.url}/livez`)).status).toBe(200);
  });

  it('serves a new certificate once its files are replaced', async () => {
    await replaceWith(second.key, live.key);
    await replaceWith(second.cert, live.cert);
    await eventually(async () => (await servedFingerprint(httpsUrl, trusted)) === second.fingerprint256);
    await eventually(() => gw.logs.some((line) => line.msg === 'TLS certificate reloaded' && line.fingerprint256 === second.fingerprint256));
  });

  it('keeps the current certificate when the new files are not a pair, and logs why', async () => {
    const rejected = () => gw.logs.filter((line) => line.msg === 'TLS certificate reload rejected; the current certificate stays');
    const before = rejected().length;
    await replaceWith(first.cert, live.cert);
    await eventually(() => rejected().length > before);
    expect(rejected().at(-1)).toMatchObject({ level: 50, problem: expect.stringMatching(/are not a usable certificate and key \(.*key values mismatch\)/) });
    expect(await servedFingerprint(httpsUrl, trusted)).toBe(second.fingerprint256);
    expect(gw.rawLogs.join('\n')).not.toContain('PRIVATE KEY');
    await replaceWith(second.cert, live.cert);
  });
});

describe('a certificate and key that cannot serve', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-tls-bad-'));
    await Promise.all([selfSignedCertificate(dir, 'a'), selfSignedCertificate(dir, 'b')]);
    await writeFile(join(dir, 'accounts.yaml'), await accountsYaml());
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const workspace = async (tls: Record<string, unknown>) => {
    const file = join(dir, `gateway-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, stringify({ listen: { host: '127.0.0.1', port: 0 }, admin: { port: 0 }, accounts: './accounts.yaml', tls }));
    return file;
  };

  it('stops the start with a StartupError naming both files', async () => {
    const config = await loadGatewayConfig(await workspace({ cert_file: './a.pem', key_file: './b.key' }));
    await expect(startGateway({ config, logDestination: { write: () => undefined } })).rejects.toThrow(StartupError);
    await expect(startGateway({ config, logDestination: { write: () => undefined } })).rejects.toThrow(
      `tls: ${join(dir, 'a.pem')} and ${join(dir, 'b.key')} are not a usable certificate and key`,
    );
  });

  it('is reported by `check`, with paths relative to gateway.yaml', async () => {
    const mismatched = await runCli(['check', '--config', await workspace({ cert_file: './a.pem', key_file: './b.key' })]);
    expect(mismatched.code).toBe(1);
    expect(mismatched.stderr).toMatch(/tls: .*\/a\.pem and .*\/b\.key are not a usable certificate and key \(.*key values mismatch\)/);
    expect((await runCli(['check', '--config', await workspace({ cert_file: './a.pem', key_file: './a.key' })])).code).toBe(0);
  });

  it('is reported by `check` when a file cannot be read', async () => {
    const missing = await runCli(['check', '--config', await workspace({ cert_file: './missing.pem', key_file: './a.key' })]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`tls.cert_file: cannot read ${join(dir, 'missing.pem')} (ENOENT)`);
  });

  it('makes `serve` exit 1 with the reason', async () => {
    const served = await runCli(['serve', '--config', await workspace({ cert_file: './a.pem', key_file: './b.key' })]);
    expect(served.code).toBe(1);
    expect(served.stderr).toMatch(/^token-gateway serve: tls: .* are not a usable certificate and key/);
  });
});
