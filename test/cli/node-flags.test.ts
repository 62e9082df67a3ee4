import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { GatewayProcess } from '../helpers/gateway-process.js';
import { BIN } from '../helpers/processes.js';

// The Dockerfile's ENTRYPOINT is held to NODE_FLAGS beside the rest of the image, in test/deploy/compose.test.ts.
const ENV_ARGUMENT = `-S node ${NODE_FLAGS.join(' ')}`;
const firstLine = (file: string): string => readFileSync(file, 'utf8').split('\n', 1)[0] ?? '';

describe('the node flags every shipped launch carries', () => {
  let gateway: GatewayProcess | undefined;

  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
  });

  it("are the installed binary's first line (source and build) and npm start's", () => {
    expect(NODE_FLAGS).toContain('--v8-pool-size=2');
    expect(NODE_FLAGS).toContain('--no-allocation-site-pretenuring');
    expect(firstLine('src/cli/main.ts')).toBe(`#!/usr/bin/env ${ENV_ARGUMENT}`);
    expect(firstLine(BIN)).toBe(`#!/usr/bin/env ${ENV_ARGUMENT}`);
    const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toBe(`node ${NODE_FLAGS.join(' ')} dist/demo/start.js`);
  });

  it('reach node when the binary is run through its first line: serve runs with them', async () => {
    // What the kernel does with that line (the test above pins it): env, everything after it as one argument, the
    // file. env finds node on PATH: the node running these tests comes first there.
    gateway = await GatewayProcess.start({}, { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` }, ['/usr/bin/env', ENV_ARGUMENT, BIN]);
    // env replaced itself with node (the same process): its command line is node's own.
    const commandLine = readFileSync(`/proc/${gateway.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(commandLine[0]).toMatch(/node$/);
    expect(commandLine.slice(1, 2 + NODE_FLAGS.length)).toEqual([...NODE_FLAGS, BIN]);
  });
});
