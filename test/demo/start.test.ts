import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/redis-server.js';

const START = resolve('dist/demo/start.js');

/** `npm start` (node dist/demo/start.js) in the repository's folder, as a newcomer runs it. */
function npmStart(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [START, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return { child, output, exited };
}

const held: Server[] = [];
/** A port some other process holds, as a second `npm start` finds 8080 and 8081. */
async function takenPort(): Promise<number> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as { port: number }).port;
}
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((server) => new Promise((done) => server.close(done))));
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const logLines = (stdout: string): Array<Record<string, unknown>> =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('npm start (the demo: an upstream on 8081, the gateway on 8080)', () => {
  it('serves the demo route through the gateway to the demo upstream, with the DEMO accounts', async () => {
    // The repository's gateway.yaml, accounts.yaml and policies/, moved off the fixed ports (8080, 8081, admin 9901)
    // that a developer's own `npm start` may hold.
    const upstreamPort = await freePort();
    const dir = await mkdtemp(join(tmpdir(), 'token-gateway-demo-'));
    folders.push(dir);
    await cp(resolve('accounts.yaml'), join(dir, 'accounts.yaml'));
    await cp(resolve('policies'), join(dir, 'policies'), { recursive: true });
    const config = parse(await readFile(resolve('gateway.yaml'), 'utf8')) as { routes: Array<{ upstream: string }> } & Record<string, unknown>;
    config.routes[0]!.upstream = `http://127.0.0.1:${upstreamPort}`;
    await writeFile(join(dir, 'gateway.yaml'), stringify({ ...config, listen: { host: '127.0.0.1', port: 0 }, admin: { host: '127.0.0.1', port: 0 } }));

    const demo = npmStart({ DEMO_UPSTREAM_PORT: String(upstreamPort) }, ['--config', join(dir, 'gateway.yaml')]);
    try {
      const url = await eventually(() => logLines(demo.output.stdout).find((line) => line.msg === 'token-gateway listening')?.url as string | undefined, {
        timeoutMs: 15_000,
        what: 'the gateway to listen',
      });
      expect(demo.output.stderr).toBe(`demo upstream (not a real API) listening on http://127.0.0.1:${upstreamPort}\n`);
      const token = await fetch(`${url}/oauth2/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'demo-user', password: 'demo-password', client_id: 'demo-app', client_secret: 'demo-app-secret' }),
      });
      expect(token.status).toBe(200);
      const { access_token } = (await token.json()) as { access_token: string };
      const call = await fetch(`${url}/business/score/v2/directors`, { headers: { authorization: `Bearer ${access_token}` } });
      expect(call.status).toBe(200);
      expect(await call.json()).toMatchObject({ demo: true, path: '/business/score/v2/directors' });
      // A clean start has nothing to warn about.
      expect(logLines(demo.output.stdout).filter((line) => (line.level as number) >= 40)).toEqual([]);
    } finally {
      demo.child.kill('SIGTERM');
      await demo.exited;
    }
  });

  it('says in one line that the demo upstream port is taken and how to fix it, and exits 1 (no stack trace)', async () => {
    const port = await takenPort();
    const demo = npmStart({ DEMO_UPSTREAM_PORT: String(port) });
    expect(await demo.exited).toBe(1);
    expect(demo.output.stderr).toBe(
      `npm start: demo upstream: cannot listen on 127.0.0.1:${port}: EADDRINUSE: another process listens there (an earlier npm start?): ` +
        "stop it, or set DEMO_UPSTREAM_PORT to a free port and the demo route's upstream in gateway.yaml to match\n",
    );
  });

  it('says in one line that the gateway port is taken, naming listen.port, and exits 1 with nothing else logged', async () => {
    const port = await takenPort();
    const demo = npmStart({ DEMO_UPSTREAM_PORT: '0' }, ['--port', String(port)]);
    expect(await demo.exited).toBe(1);
    const lines = demo.output.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^demo upstream \(not a real API\) listening on /);
    expect(lines[1]).toBe(
      `token-gateway serve: cannot listen (listen.host: 127.0.0.1, listen.port: ${port}): EADDRINUSE: another process listens there (another token-gateway?): stop it or choose another listen.port (0 picks a free one)`,
    );
    // A clean start writes no warning: nothing was restored, nothing is wrong but the port.
    expect(demo.output.stdout.split('\n').filter((line) => /"level":(40|50|60)/.test(line))).toEqual([]);
  });

  it('refuses a DEMO_UPSTREAM_PORT that is not a port, exiting 2', async () => {
    const demo = npmStart({ DEMO_UPSTREAM_PORT: 'eighty' });
    expect(await demo.exited).toBe(2);
    expect(demo.output.stderr).toBe('npm start: demo upstream: DEMO_UPSTREAM_PORT must be a whole number from 0 to 65535, got "eighty"\n');
  });
});
