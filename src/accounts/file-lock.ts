import { randomBytes } from 'node:crypto';
import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';

export interface LockOptions {
  /** A lock file older than this was left by a process that died: it is broken. */
  staleAfterMs?: number;
  /** Between two attempts while another edit holds the lock. */
  retryMs?: number;
  /** Told once when the lock is found held, with what the holder wrote in it (its pid): a command says it is waiting. */
  onBusy?: (holder: string) => void;
}

/** The lock could not be taken (held by a live edit for longer than a stale one would be, or not creatable). */
export class LockUnavailable extends Error {
  override readonly name = 'LockUnavailable';
}

const STALE_AFTER_MS = 10_000;

/**
 * Runs `task` holding `lockFile`, created with O_EXCL so that only one edit at
 * a time holds it. An edit holds it for milliseconds; a lock older than
 * `staleAfterMs` is one whose process died, and is broken. Breaking is not
 * atomic with taking (two waiters may both see the stale file): the edit
 * itself also compares the file before replacing it (see accounts-file.ts).
 */
export async function withFileLock<T>(lockFile: string, task: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const token = await acquire(lockFile, options.staleAfterMs ?? STALE_AFTER_MS, options.retryMs ?? 25, options.onBusy);
  try {
    return await task();
  } finally {
    await release(lockFile, token);
  }
}

async function acquire(lockFile: string, staleAfterMs: number, retryMs: number, onBusy: LockOptions['onBusy']): Promise<string> {
  const token = `${process.pid} ${randomBytes(8).toString('hex')}\n`;
  // A live holder never keeps it past staleAfterMs, so waiting longer than twice that means a clock or file system problem.
  const giveUpAt = Date.now() + 2 * staleAfterMs;
  let told = false;
  for (;;) {
    if (await tryCreate(lockFile, token)) return token;
    const age = await ageOf(lockFile);
    if (age !== undefined && age > staleAfterMs) await breakStale(lockFile);
    else if (!told && age !== undefined) {
      told = true;
      onBusy?.(await holderOf(lockFile));
    } else if (Date.now() > giveUpAt) {
      throw new LockUnavailable(`${lockFile} is held by another edit; if no token-gateway command is running, delete it`);
    } else await delay(retryMs);
  }
}

async function tryCreate(lockFile: string, token: string): Promise<boolean> {
  try {
    const handle = await open(lockFile, 'wx', 0o600);
    try {
      await handle.writeFile(token);
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new LockUnavailable(`cannot create ${lockFile} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Milliseconds since the lock was taken; undefined when it has just been released. */
async function ageOf(lockFile: string): Promise<number | undefined> {
  try {
    return Date.now() - (await stat(lockFile)).mtimeMs;
  } catch {
    return undefined;
  }
}

async function holderOf(lockFile: string): Promise<string> {
  return (await readFile(lockFile, 'utf8').catch(() => '')).split(' ')[0] ?? '';
}

/** Renamed away first, so that of two processes breaking the same stale lock only one deletes a file. */
async function breakStale(lockFile: string): Promise<void> {
  const aside = `${lockFile}.stale-${randomBytes(4).toString('hex')}`;
  try {
    await rename(lockFile, aside);
    await unlink(aside);
  } catch {
    // Someone else broke it first: the next attempt tells.
  }
}

/** Deletes the lock only if it is still ours (it may have been broken as stale by now). */
async function release(lockFile: string, token: string): Promise<void> {
  try {
    if ((await readFile(lockFile, 'utf8')) === token) await unlink(lockFile);
  } catch {
    // Already gone.
  }
}
