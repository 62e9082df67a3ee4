import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';

const MAIN = resolve('dist/demo/upstream-main.js');

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  const output = { stderr: '' };
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return { child, output, exited };
}

describe('the demo upstream on its own (the compose file\'s `upstream` service)', () => {
  it('listens where DEMO_UPSTREAM_HOST and DEMO_UPSTREAM_PORT say, answers any path, and stops on SIGTERM', async () => {
    const upstream = start({ DEMO_UPSTREAM_HOST: '127.0.0.1', DEMO_UPSTREAM_PORT: '0' });
    await eventually(() => upstream.output.stderr.includes('listening on'));
    const url = /listening on (http:\/\/\S+)/.exec(upstream.output.stderr)?.[1];
    const response = await fetch(`${url}/business/score/v2/directors`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ demo: true, path: '/business/score/v2/directors' });
    upstream.child.kill('SIGTERM');
    expect(await upstream.exited).toBe(0);
  });

  it('refuses a port that is not a number', async () => {
    const upstream = start({ DEMO_UPSTREAM_PORT: 'eighty' });
    expect(await upstream.exited).toBe(2);
    expect(upstream.output.stderr).toContain('DEMO_UPSTREAM_PORT must be a whole number');
  });
});
