import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What `npm pack --json` says of the tarball it made. */
export interface PackResult {
  filename: string;
  unpackedSize: number;
  entryCount: number;
  files: Array<{ path: string; size: number }>;
}

export interface InstalledPackage {
  /** The temporary folder holding everything below; remove it when done. */
  work: string;
  packed: PackResult;
  /** An empty project that installed the tarball, and nothing else. */
  app: string;
  /** What `npm install` printed. */
  installOutput: string;
}

/**
 * Packs the package as a release would and installs the tarball into an
 * empty project, offline. The package is packed from a copy of its folder
 * without dist/ or node_modules/: `npm pack` runs the package's own prepack
 * build from nothing, with no gateway around it, and never rewrites the
 * dist/ that the repository's other tests are importing at the same moment.
 */
export async function packAndInstall(packageFolder: string): Promise<InstalledPackage> {
  const work = await mkdtemp(join(tmpdir(), 'token-gateway-client-package-'));
  const source = join(work, 'source');
  const built = new Set(['dist', 'node_modules']);
  await cp(packageFolder, source, { recursive: true, filter: (path) => !built.has(relative(packageFolder, path)) });
  // npm adds node_modules/.bin to PATH only for the project it runs in: the copy has none, so the build's tsc comes from here.
  const env = userEnvironment(binFolders(packageFolder));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: source, env });
  const [packed] = JSON.parse(stdout) as PackResult[];
  if (!packed) throw new Error(`npm pack reported no tarball: ${stdout}`);
  const app = join(work, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2)}\n`);
  const install = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, packed.filename)], { cwd: app, env });
  return { work, packed, app, installOutput: install.stdout };
}

/**
 * This process's environment without the npm_* variables that the `npm test`
 * running it sets (npm_config_local_prefix, for one, names the repository):
 * the npm started here must behave as in a user's shell.
 */
export function userEnvironment(extraPath: string[] = []): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, PATH: [...extraPath, process.env.PATH ?? ''].join(delimiter) };
}

/** Every node_modules/.bin from a folder up to the root, nearest first, as npm run puts them on PATH. */
function binFolders(from: string): string[] {
  const found: string[] = [];
  for (let folder = from; ; folder = dirname(folder)) {
    const bin = join(folder, 'node_modules', '.bin');
    if (existsSync(bin)) found.push(bin);
    if (dirname(folder) === folder) return found;
  }
}

/** The bytes of every file below a folder. */
export async function folderSize(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}
