import { readFile } from 'node:fs/promises';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { z } from './zod.js';
import { ConfigError, keyPath, type ConfigIssue } from './errors.js';

/**
 * Reads a YAML file and validates it against a schema, turning every problem
 * into a ConfigIssue that names the file, the line and the key. Shared by
 * gateway.yaml, accounts.yaml and (later) policy files.
 */
export async function loadYamlFile<S extends z.ZodType>(file: string, schema: S, namedBy?: FileReference): Promise<z.output<S>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError([await readFailure(file, error, namedBy)]);
  }
  return parseYamlText(text, file, schema);
}

/** The key of a config file that names another file (`accounts` in gateway.yaml): where to send an operator when that file cannot be read. */
export interface FileReference {
  readonly file: string;
  readonly key: readonly PropertyKey[];
}

/**
 * A file that cannot be read: at the key that named it when there is one
 * (`gateway.yaml:16: accounts: cannot read /etc/tg/nope.yaml (ENOENT)`), else
 * at the file itself (`nope.yaml: cannot read file (ENOENT)`).
 */
export async function readFailure(file: string, error: unknown, namedBy?: FileReference, what = 'file'): Promise<ConfigIssue> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'error';
  if (!namedBy) return { file, key: '', message: `cannot read ${what} (${code})` };
  return { file: namedBy.file, line: await lineOfKey(namedBy.file, namedBy.key), key: keyPath(namedBy.key), message: `cannot read ${file} (${code})` };
}

export function parseYamlText<S extends z.ZodType>(text: string, file: string, schema: S): z.output<S> {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;
  if (document.errors.length > 0) {
    throw new ConfigError(
      document.errors.map((error) => {
        const duplicate = error.code === 'DUPLICATE_KEY' ? duplicateKeyAt(document.contents, error.pos[0], lineAt) : undefined;
        if (duplicate) return { file, ...duplicate };
        return { file, line: lineAt(error.pos[0]), key: '', message: error.message.split('\n')[0] ?? 'invalid YAML' };
      }),
    );
  }
  const result = schema.safeParse(document.toJS() ?? {});
  if (result.success) return result.data;
  const issues: ConfigIssue[] = [];
  for (const issue of result.error.issues) {
    const unknownKeys: readonly string[] = issue.code === 'unrecognized_keys' ? issue.keys : [];
    if (unknownKeys.length > 0) {
      for (const key of unknownKeys) {
        const path = [...issue.path, key];
        issues.push({ file, line: lineOfPath(document.contents, path, lineAt), key: keyPath(path), message: 'unknown key' });
      }
      continue;
    }
    issues.push({ file, line: lineOfPath(document.contents, issue.path, lineAt), key: keyPath(issue.path), message: issue.message });
  }
  throw new ConfigError(issues);
}

/**
 * The line of a key in a file that already loaded, for problems found only
 * when several files are put together (a route naming a policy that no policy
 * file defines). Undefined when the file cannot be read any more.
 */
export async function lineOfKey(file: string, path: readonly PropertyKey[]): Promise<number | undefined> {
  try {
    const lineCounter = new LineCounter();
    const document = parseDocument(await readFile(file, 'utf8'), { lineCounter });
    return lineOfPath(document.contents, path, (offset) => lineCounter.linePos(offset).line);
  } catch {
    return undefined;
  }
}

/** The line of the deepest node along `path` that exists: the key itself, or its nearest parent. */
function lineOfPath(root: unknown, path: readonly PropertyKey[], lineAt: (offset: number) => number): number | undefined {
  let node = root as Node | null | undefined;
  let line = node?.range ? lineAt(node.range[0]) : undefined;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => (item.key as { value?: unknown } | null)?.value === segment);
      if (!pair) break;
      const keyNode = pair.key as Node;
      if (keyNode.range) line = lineAt(keyNode.range[0]);
      node = pair.value as Node | null;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment] as Node | null;
      if (node?.range) line = lineAt(node.range[0]);
    } else break;
  }
  return line;
}

/**
 * yaml's DUPLICATE_KEY says only "Map keys must be unique" at the repeated key's offset: the key
 * there, its path and the line where it was first written. Undefined when no key starts there.
 */
function duplicateKeyAt(root: unknown, offset: number, lineAt: (offset: number) => number): Omit<ConfigIssue, 'file'> | undefined {
  const walk = (node: unknown, path: readonly PropertyKey[]): Omit<ConfigIssue, 'file'> | undefined => {
    if (isSeq(node)) {
      for (const [index, item] of node.items.entries()) {
        const found = walk(item, [...path, index]);
        if (found) return found;
      }
    } else if (isMap(node)) {
      for (const pair of node.items) {
        const key = pair.key as Node | null;
        const name = isScalar(key) ? key.value : undefined;
        if (key?.range?.[0] === offset) {
          const first = node.items.find((other) => isScalar(other.key) && other.key.value === name)?.key as Node | undefined;
          const firstLine = first && first !== key && first.range ? ` (first on line ${lineAt(first.range[0])})` : '';
          return { line: lineAt(offset), key: keyPath([...path, String(name)]), message: `duplicate key "${String(name)}"${firstLine}` };
        }
        const found = walk(pair.value, [...path, String(name)]);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(root, []);
}
