import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchFiles, type FileWatch } from '../../src/config/file-watch.js';
import { eventually } from '../helpers/eventually.js';
import { silentLogger } from '../helpers/redis-store.js';

describe('watching config files (their folders, filtered by name)', () => {
  let dir: string;
  let watch: FileWatch | undefined;
  let calls = 0;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tg-watch-'));
    calls = 0;
  });
  afterEach(async () => {
    watch?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const start = (...names: string[]) => (watch = watchFiles(names.map((name) => join(dir, name)), () => calls++, silentLogger, 'test files'));

  it('calls once when a watched file is written', async () => {
    await writeFile(join(dir, 'gateway.yaml'), 'a: 1\n');
    start('gateway.yaml');
    await writeFile(join(dir, 'gateway.yaml'), 'a: 2\n');
    await eventually(() => calls === 1, { what: 'one change callback' });
  });

  it('sees a save by rename (write aside, rename over), which a watch on the file would miss', async () => {
    await writeFile(join(dir, 'accounts.yaml'), 'users: []\n');
    start('accounts.yaml');
    await writeFile(join(dir, 'accounts.yaml.tmp'), 'users: []\napps: []\n');
    await rename(join(dir, 'accounts.yaml.tmp'), join(dir, 'accounts.yaml'));
    await eventually(() => calls >= 1, { what: 'a change callback after the rename' });
  });

  it('settles a burst of writes into one callback', async () => {
    await writeFile(join(dir, 'gateway.yaml'), '');
    start('gateway.yaml');
    for (let i = 0; i < 5; i++) await writeFile(join(dir, 'gateway.yaml'), `a: ${i}\n`);
    await eventually(() => calls > 0, { what: 'the settled callback' });
    expect(calls).toBe(1);
  });

  it('sees a Kubernetes ConfigMap swap (the ..data link replaced)', async () => {
    await mkdir(join(dir, '..2026_a'));
    await writeFile(join(dir, '..2026_a', 'gateway.yaml'), 'a: 1\n');
    await symlink('..2026_a', join(dir, '..data'));
    await symlink('..data/gateway.yaml', join(dir, 'gateway.yaml'));
    start('gateway.yaml');
    await mkdir(join(dir, '..2026_b'));
    await writeFile(join(dir, '..2026_b', 'gateway.yaml'), 'a: 2\n');
    await symlink('..2026_b', join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
    await eventually(() => calls >= 1, { what: 'a change callback after the ..data swap' });
  });

  it('watches files in several folders', async () => {
    await mkdir(join(dir, 'tls'));
    start('gateway.yaml', join('tls', 'cert.pem'));
    await writeFile(join(dir, 'tls', 'cert.pem'), 'x');
    await eventually(() => calls === 1, { what: 'a change callback for the file in the other folder' });
  });

  it('logs, and goes on without, a folder it cannot watch', () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = { warn: (fields: Record<string, unknown>, msg: string) => void lines.push({ ...fields, msg }) } as unknown as typeof silentLogger;
    watch = watchFiles([join(dir, 'missing-folder', 'gateway.yaml')], () => calls++, logger, 'gateway.yaml');
    expect(lines).toEqual([{ folder: join(dir, 'missing-folder'), code: 'ENOENT', msg: 'gateway.yaml not watched; send SIGHUP to reload' }]);
  });
});
