import { randomBytes } from 'node:crypto';
import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The file changed between reading it and replacing it (an editor, or an edit that broke a stale lock). */
export class ConcurrentChange extends Error {
  override readonly name = 'ConcurrentChange';
}

/**
 * Replaces `file` with `text` so that a reader (the gateway reloading it, a
 * crash half-way) sees the old file or the new one, never a mix: a temporary
 * file in the same folder (a rename across file systems is not atomic), with
 * the original's mode and owner, flushed to disk, then renamed over it.
 * Refuses when the file no longer holds `expected`, the text the edit started from.
 */
export async function replaceFileAtomically(file: string, text: string, expected: string): Promise<void> {
  const original = await stat(file);
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temporary, 'wx', 0o600);
    try {
      // open() applies the umask; chmod does not, so the mode is exactly the original's.
      await handle.chmod(original.mode & 0o7777);
      await keepOwner(handle, original);
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if ((await readFile(file, 'utf8')) !== expected) {
      throw new ConcurrentChange(`${file} changed while it was being edited; nothing was written, run the command again`);
    }
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncFolder(dirname(file));
}

/** Run as root on a file the gateway's user owns, the new file stays that user's, or the gateway could not read it. */
async function keepOwner(handle: Awaited<ReturnType<typeof open>>, original: { uid: number; gid: number }): Promise<void> {
  if (process.getuid?.() !== 0) return;
  await handle.chown(original.uid, original.gid);
}

/** The rename is durable only once the folder's entry is on disk. */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems cannot fsync a folder; the rename itself has happened.
  }
}
