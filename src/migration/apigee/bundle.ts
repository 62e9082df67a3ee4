import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';

/** What a bundle is: an API proxy (`apiproxy/`) or a shared flow (`sharedflowbundle/`). */
export type BundleKind = 'apiproxy' | 'sharedflowbundle';

/** One bundle's XML files, by their path inside the bundle folder (`proxies/default.xml`). */
export interface Bundle {
  readonly kind: BundleKind;
  /** As given on the command line, for the report. */
  readonly source: string;
  /** The name of the bundle's descriptor (`apiproxy/<name>.xml`), else the folder's or zip's name. */
  readonly name: string;
  readonly files: ReadonlyMap<string, string>;
  /** How the report names a file of this bundle: `<source>/apiproxy/policies/x.xml` (or inside the zip). */
  displayPath(file: string): string;
}

/** The bundle could not be read at all (not found, not a bundle, unsafe zip). */
export class BundleError extends Error {
  override readonly name = 'BundleError';
}

// Bounds for a zip: bundles are a few hundred small XML files. Far above that is an attack or a mistake.
const MAX_ENTRIES = 5_000;
const MAX_ENTRY_BYTES = 4 * 1024 * 1024;
const MAX_TOTAL_BYTES = 64 * 1024 * 1024;
const KINDS: readonly BundleKind[] = ['apiproxy', 'sharedflowbundle'];

/** Reads a bundle from a folder (holding `apiproxy/`, or `apiproxy/` itself) or a `.zip` as Apigee exports it. */
export async function readBundle(source: string): Promise<Bundle> {
  const info = await stat(source).catch(() => undefined);
  if (!info) throw new BundleError(`${source}: no such file or folder`);
  if (info.isDirectory()) {
    // Given apiproxy/ itself, the bundle root is its parent: the report's paths name apiproxy/ once.
    const root = isKindFolder(source) ? join(source, '..') : source;
    return bundleOf(source, await folderEntries(root), root);
  }
  const entries = await zipEntries(source);
  const folder = soleTopFolder(entries);
  return bundleOf(source, folder ? withoutTopFolder(entries, folder) : entries, folder ? join(source, folder) : source);
}

const isKindFolder = (folder: string): boolean => KINDS.includes(basename(resolve(folder)) as BundleKind);

/**
 * A zip of the bundle's folder (`zip -r x.zip orders`) holds every entry
 * under `orders/`, apiproxy/ one level down: the one folder every entry
 * sits in, when it holds a bundle and no entry already starts with one.
 */
function soleTopFolder(entries: ReadonlyMap<string, string>): string | undefined {
  const paths = [...entries.keys()];
  if (paths.length === 0 || paths.some((path) => KINDS.some((kind) => path.startsWith(`${kind}/`)))) return undefined;
  const tops = new Set(paths.map((path) => path.split('/')[0]));
  const [top] = tops;
  if (tops.size !== 1 || top === undefined || !paths.every((path) => path.startsWith(`${top}/`))) return undefined;
  return paths.some((path) => KINDS.some((kind) => path.startsWith(`${top}/${kind}/`))) ? top : undefined;
}

const withoutTopFolder = (entries: ReadonlyMap<string, string>, top: string): Map<string, string> =>
  new Map([...entries].map(([path, text]) => [path.slice(top.length + 1), text]));

/** `root` is where the report's paths start: the folder holding apiproxy/, or the zip (and its one top folder). */
function bundleOf(source: string, entries: ReadonlyMap<string, string>, root: string): Bundle {
  const kinds = KINDS.filter((kind) => [...entries.keys()].some((path) => path.startsWith(`${kind}/`)));
  if (kinds.length !== 1) {
    throw new BundleError(
      kinds.length === 0
        ? `${source}: not an Apigee bundle (expected an apiproxy/ or sharedflowbundle/ folder)`
        : `${source}: holds both apiproxy/ and sharedflowbundle/; import them as two bundles`,
    );
  }
  const kind = kinds[0] as BundleKind;
  const files = new Map<string, string>();
  for (const [path, text] of entries) if (path.startsWith(`${kind}/`)) files.set(path.slice(kind.length + 1), text);
  const descriptor = [...files.keys()].find((path) => !path.includes('/') && path.endsWith('.xml'));
  const name = descriptor ? descriptor.replace(/\.xml$/, '') : basename(resolve(root)).replace(/\.zip$/i, '');
  return { kind, source, name, files, displayPath: (file) => join(root, kind, file) };
}

/** Every .xml file under the folder, by its path relative to the bundle root (the folder holding apiproxy/). */
async function folderEntries(root: string): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  let total = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      // Symbolic links are not followed: a bundle is plain files, and a link could lead anywhere on the disk.
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && entry.name.endsWith('.xml')) {
        const size = (await stat(path)).size;
        total += size;
        if (size > MAX_ENTRY_BYTES || total > MAX_TOTAL_BYTES) throw new BundleError(`${path}: larger than a bundle's files can be (${MAX_ENTRY_BYTES} bytes each, ${MAX_TOTAL_BYTES} in all)`);
        entries.set(relative(root, path).split(sep).join('/'), await readFile(path, 'utf8'));
      }
    }
  };
  for (const kind of KINDS) {
    const dir = join(root, kind);
    if ((await stat(dir).catch(() => undefined))?.isDirectory()) await walk(dir);
  }
  return entries;
}

/**
 * The .xml entries of a zip. Names are checked before anything is inflated:
 * an absolute path, a backslash or a `..` segment (zip-slip) refuses the
 * whole archive, and so do sizes past the bounds above (zip bombs). Nothing
 * is ever written to disk from the archive.
 */
async function zipEntries(file: string): Promise<Map<string, string>> {
  const { unzipSync } = await import('fflate');
  const data = await readFile(file);
  let count = 0;
  let declared = 0;
  let refusal: string | undefined;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(data, {
      filter: (entry) => {
        count++;
        const unsafe = unsafeName(entry.name);
        if (unsafe) refusal ??= `entry "${entry.name}": ${unsafe}`;
        if (count > MAX_ENTRIES) refusal ??= `more than ${MAX_ENTRIES} entries`;
        if (!entry.name.endsWith('.xml')) return false;
        declared += entry.originalSize;
        if (entry.originalSize > MAX_ENTRY_BYTES) refusal ??= `entry "${entry.name}" inflates to ${entry.originalSize} bytes (at most ${MAX_ENTRY_BYTES})`;
        if (declared > MAX_TOTAL_BYTES) refusal ??= `inflates to more than ${MAX_TOTAL_BYTES} bytes`;
        return refusal === undefined;
      },
    });
  } catch (error) {
    throw new BundleError(`${file}: not a readable zip (${error instanceof Error ? error.message : String(error)})`);
  }
  if (refusal) throw new BundleError(`${file}: refused, ${refusal}`);
  const entries = new Map<string, string>();
  for (const [name, bytes] of Object.entries(files)) {
    // The declared size is the archive's word; the inflated size is the fact.
    if (bytes.length > MAX_ENTRY_BYTES) throw new BundleError(`${file}: refused, entry "${name}" inflates past ${MAX_ENTRY_BYTES} bytes`);
    entries.set(name, Buffer.from(bytes).toString('utf8'));
  }
  return entries;
}

function unsafeName(name: string): string | undefined {
  if (name.includes('\\')) return 'a backslash in an entry name';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  if (name.split('/').some((segment) => segment === '..')) return 'a ".." segment (zip-slip)';
  if (name.includes('\0')) return 'a NUL in an entry name';
  return undefined;
}
