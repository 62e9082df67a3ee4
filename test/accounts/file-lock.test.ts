import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LockUnavailable, withFileLock } from '../../src/accounts/file-lock.js';

const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

async function lockIn(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'tg-lock-'));
  folders.push(folder);
  return join(folder, 'accounts.yaml.lock');
}

describe('withFileLock', () => {
  it('holds the lock while the task runs and removes it after, also when the task fails', async () => {
    const lock = await lockIn();
    await withFileLock(lock, async () => expect(existsSync(lock)).toBe(true));
    expect(existsSync(lock)).toBe(false);
    await expect(withFileLock(lock, () => Promise.reject(new Error('task failed')))).rejects.toThrow('task failed');
    expect(existsSync(lock)).toBe(false);
  });

  it('makes a second edit wait until the first has finished, and tells it who holds the lock', async () => {
    const lock = await lockIn();
    const events: string[] = [];
    let releaseFirst!: () => void;
    let firstEntered!: () => void;
    const entered = new Promise<void>((done) => (firstEntered = done));
    const first = withFileLock(lock, async () => {
      events.push('first in');
      firstEntered();
      await new Promise<void>((done) => (releaseFirst = done));
      events.push('first out');
    });
    await entered;
    const holders: string[] = [];
    const second = withFileLock(lock, async () => void events.push('second in'), {
      retryMs: 5,
      onBusy: (holder) => {
        holders.push(holder);
        releaseFirst();
      },
    });
    await Promise.all([first, second]);
    expect(events).toEqual(['first in', 'first out', 'second in']);
    expect(holders).toEqual([String(process.pid)]);
  });

  it('breaks a lock left by a process that died (older than staleAfterMs)', async () => {
    const lock = await lockIn();
    await writeFile(lock, '999999 dead\n');
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(lock, minuteAgo, minuteAgo);
    let busy = false;
    expect(await withFileLock(lock, async () => 'ran', { onBusy: () => (busy = true) })).toBe('ran');
    expect(busy).toBe(false);
    expect(await readdir(join(lock, '..'))).toEqual([]);
  });

  it('gives up on a lock that stays fresh for twice staleAfterMs, naming it', async () => {
    const lock = await lockIn();
    await writeFile(lock, '1 live\n');
    // A lock that is never older than staleAfterMs: its mtime is in the future (a clock problem).
    const future = new Date(Date.now() + 60_000);
    await utimes(lock, future, future);
    await expect(withFileLock(lock, async () => 'ran', { staleAfterMs: 50, retryMs: 5 })).rejects.toThrow(LockUnavailable);
    expect(existsSync(lock)).toBe(true);
  });

  it('does not delete a lock it no longer owns', async () => {
    const lock = await lockIn();
    await withFileLock(lock, async () => {
      // Another edit broke ours as stale and took the lock.
      await writeFile(lock, '2 someone-else\n');
    });
    expect(existsSync(lock)).toBe(true);
  });
});
