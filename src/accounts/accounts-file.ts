import { readFile, realpath } from 'node:fs/promises';
import { ConfigError } from '../config/errors.js';
import { parseYamlText } from '../config/yaml-file.js';
import { AccountsDocument } from './accounts-document.js';
import { replaceFileAtomically } from './atomic-write.js';
import { withFileLock, type LockOptions } from './file-lock.js';
import { accountsSchema, type AccountsFile } from './schema.js';

export interface AccountsEditOptions {
  /** Checks beyond the schema on the edited accounts (policy names exist); throws ConfigError to refuse. */
  validate?: (accounts: AccountsFile) => Promise<void>;
  lock?: LockOptions;
}

/**
 * The current file, for a look before a prompt or a slow hash (is the name
 * free?). Decisions are taken again under the lock by editAccountsFile.
 */
export async function readAccountsDocument(file: string): Promise<AccountsDocument> {
  return AccountsDocument.parse(await readText(file, file), file);
}

/**
 * One edit of accounts.yaml, all or nothing: under `<file>.lock`, read, edit,
 * check the result against the schema (and `validate`), then replace the file
 * atomically, refusing if it changed since it was read. Nothing is written when
 * the edit changes nothing or anything is refused. A symbolic link is followed
 * and stays a link: the file it points to is the one replaced.
 */
export async function editAccountsFile<T>(
  file: string,
  edit: (document: AccountsDocument) => T,
  options: AccountsEditOptions = {},
): Promise<{ value: T; written: boolean }> {
  const target = await realFile(file);
  return withFileLock(
    `${target}.lock`,
    async () => {
      const text = await readText(target, file);
      const document = AccountsDocument.parse(text, file);
      const value = edit(document);
      if (!document.changed) return { value, written: false };
      const edited = document.render();
      const accounts = parseYamlText(edited, file, accountsSchema);
      await options.validate?.(accounts);
      await replaceFileAtomically(target, edited, text);
      return { value, written: true };
    },
    options.lock,
  );
}

async function realFile(file: string): Promise<string> {
  try {
    return await realpath(file);
  } catch (error) {
    throw unreadable(file, error);
  }
}

async function readText(path: string, file: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw unreadable(file, error);
  }
}

// The same words as loadYamlFile, so `check` and the edit commands agree.
const unreadable = (file: string, error: unknown) =>
  new ConfigError([{ file, key: '', message: `cannot read file (${(error as NodeJS.ErrnoException).code ?? 'error'})` }]);
