import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { accountsYaml } from '../helpers/accounts.js';
import { BIN } from '../helpers/processes.js';

// The Dockerfile's ENTRYPOINT is held to NODE_FLAGS beside the rest of the image, in test/deploy/compose.test.ts.
const SHEBANG = `#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`;
const firstLine = (file: string): string => readFileSync(file, 'utf8').split('\n', 1)[0] ?? '';

describe('the node flags every shipped launch carries', () => {
  let dir: string | undefined;
  let stop: (() => void) | undefined;

  afterEach(async () => {
    stop?.();
    stop = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('are the installed binary\'s first line (source and build) and npm start\'s', () => {
    expect(NODE_FLAGS).toContain('--v8-pool-size=2');
    expect(firstLine('src/cli/main.ts')).toBe(SHEBANG);
    expect(firstLine(BIN)).toBe(SHEBANG);
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toBe(`node ${NODE_FLAGS.join(' ')} dist/demo/start.js`);
  });

  it('reach node when the binary is run through its first line: serve runs with them', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-node-flags-'));
    await writeFile(join(dir, 'accounts.yaml'), await accountsYaml());
    await writeFile(join(dir, 'gateway.yaml'), stringify({ listen: { host: '127.0.0.1', port: 0 }, admin: { port: 0 }, accounts: './accounts.yaml' }));
    // What the kernel does with a `#!` line: the interpreter, then everything after it as one argument, then the file.
    const [interpreter = '', argument = ''] = splitShebang(firstLine(BIN));
    const child = spawn(interpreter, [argument, BIN, 'serve', '--config', join(dir, 'gateway.yaml')], { stdio: ['ignore', 'pipe', 'pipe'] });
    stop = () => child.kill('SIGKILL');
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((listening, failed) => {
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('"msg":"token-gateway listening"')) listening();
      });
      child.once('exit', (code) => failed(new Error(`serve exited with ${code} before listening: ${stderr}`)));
    });
    // env replaced itself with node: the same process, whose command line is node's own.
    const commandLine = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(commandLine.slice(1, 2 + NODE_FLAGS.length)).toEqual([...NODE_FLAGS, BIN]);
    expect(commandLine[0]).toMatch(/node$/);
  });
});

/** `#!/usr/bin/env -S node ...` as [`/usr/bin/env`, `-S node ...`]. */
function splitShebang(line: string): string[] {
  const rest = line.slice(2).trim();
  const space = rest.indexOf(' ');
  return [rest.slice(0, space), rest.slice(space + 1)];
}
