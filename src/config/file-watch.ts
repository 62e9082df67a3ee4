import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../log/logger.js';

/** Editors write a file in several steps (truncate, write, rename): one callback once they settle. */
export const SETTLE_MS = 100;

export interface FileWatch {
  close(): void;
}

/**
 * Calls `onChange` once, SETTLE_MS after the last change to any of `files`.
 *
 * The folders are watched, not the files: an editor's save (write aside,
 * rename over) and a Kubernetes ConfigMap update (the `..data` symlink of the
 * mount swapped to a new folder) both replace the file, and a watch on the
 * file itself would go on following the old inode in silence. Events are
 * filtered by name, so a neighbour's edits (a policies folder, swap files) do
 * not count. A folder that cannot be watched is logged; SIGHUP still reloads.
 */
export function watchFiles(files: readonly string[], onChange: () => void, logger: Logger, what: string): FileWatch {
  const namesByFolder = new Map<string, Set<string>>();
  for (const file of files) {
    const folder = dirname(file);
    namesByFolder.set(folder, (namesByFolder.get(folder) ?? new Set()).add(basename(file)));
  }
  let settle: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(settle);
    settle = setTimeout(onChange, SETTLE_MS);
  };
  const watchers: FSWatcher[] = [];
  for (const [folder, names] of namesByFolder) {
    const watcher = watchFolder(folder, names, changed, logger, what);
    if (watcher) watchers.push(watcher);
  }
  return {
    close() {
      clearTimeout(settle);
      for (const watcher of watchers) watcher.close();
    },
  };
}

function watchFolder(folder: string, names: ReadonlySet<string>, changed: () => void, logger: Logger, what: string): FSWatcher | undefined {
  let watcher: FSWatcher;
  try {
    watcher = watch(folder, { persistent: false }, (_event, name) => {
      if (concerns(name, names)) changed();
    });
  } catch (error) {
    logger.warn({ folder, code: (error as NodeJS.ErrnoException).code }, `${what} not watched; send SIGHUP to reload`);
    return undefined;
  }
  watcher.on('error', (error) => {
    logger.warn({ folder, err: error }, `${what} watch stopped; send SIGHUP to reload`);
    watcher.close();
  });
  return watcher;
}

/**
 * One of our files, or the `..data` link (and its `..data_tmp` stand-in)
 * through which a Kubernetes ConfigMap or Secret mount swaps every file at
 * once. Some platforms report no name at all: then it may be ours.
 */
function concerns(name: string | Buffer | null, names: ReadonlySet<string>): boolean {
  if (name === null) return true;
  const text = name.toString();
  return names.has(text) || text.startsWith('..data');
}
