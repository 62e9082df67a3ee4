import { execFile } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderSize, packAndInstall, userEnvironment, type InstalledPackage } from './helpers/packed-package.js';

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = join(PACKAGE, 'src');
const require = createRequire(import.meta.url);
// The repository's own TypeScript, and its @types/node for the consumer that uses node's fetch types.
const TSC = require.resolve('typescript/bin/tsc');
const NODE_TYPES = dirname(dirname(require.resolve('@types/node/package.json')));

/** The installed package may weigh this much at most, unpacked (measured: about 100 KB). */
const UNPACKED_BOUND = 200_000;

/** The public names: main entry, then the ./paths subpath. */
const PATH_NAMES = [
  'AUTHORIZATION_SERVER_METADATA_PATH',
  'CLIENT_ID_HEADER',
  'CLIENT_SECRET_HEADER',
  'DISCOVERY_PATH',
  'GRANT_TYPE_HEADER',
  'INTROSPECT_PATH',
  'JWKS_PATH',
  'OPENAPI_PATH',
  'REFRESH_TOKEN_HEADER',
  'REVOKE_PATH',
  'TOKEN_HEADER',
  'TOKEN_PATH',
];
const MAIN_NAMES = [...PATH_NAMES, 'DEFAULT_RENEW_AFTER_MS', 'EXPIRY_MARGIN_MS', 'TokenClient', 'TokenGatewayError', 'TokenRequestError'].sort();

/** Every module specifier in a TypeScript source: static imports and re-exports, and dynamic imports. */
function specifiersOf(source: string): string[] {
  const found = [...source.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((match) => match[1] ?? '');
  return found.filter((specifier) => specifier !== '');
}

const sourceModules = async (): Promise<string[]> =>
  (await readdir(SOURCES)).filter((file) => file.endsWith('.ts')).map((file) => file.replace(/\.ts$/, ''));

describe('@token-gateway/client sources', () => {
  it('import nothing outside the package and nothing from node: (it runs wherever fetch does)', async () => {
    const modules = await sourceModules();
    expect(modules).toContain('index');
    for (const module of modules) {
      const specifiers = specifiersOf(await readFile(join(SOURCES, `${module}.ts`), 'utf8'));
      for (const specifier of specifiers) expect({ module, specifier }).toEqual({ module, specifier: expect.stringMatching(/^\.\/[\w-]+\.js$/) });
    }
  });
});

/**
 * The same statements for both module systems; `load` is import() or
 * require(), `where` import.meta.resolve or require.resolve. Prints what an
 * application would see.
 */
const PROBE = `
const main = await load('@token-gateway/client');
const paths = await load('@token-gateway/client/paths');
let refused;
try {
  new main.TokenClient({ baseUrl: 'ftp://gw.example.com', clientId: 'a', clientSecret: 's', username: 'u', password: 'p' });
} catch (error) {
  refused = \`\${error.constructor.name}: \${error.message}\`;
}
const error = new main.TokenGatewayError({ status: 401, errorCode: 'INVALID_CLIENT_CREDENTIALS', message: 'denied', requestId: 'r' });
console.log(JSON.stringify({
  files: [where('@token-gateway/client'), where('@token-gateway/client/paths')],
  main: Object.keys(main).sort(),
  paths: Object.keys(paths).sort(),
  samePaths: Object.keys(paths).every((name) => paths[name] === main[name]),
  tokenPath: paths.TOKEN_PATH,
  renewAfterMs: main.DEFAULT_RENEW_AFTER_MS,
  refused,
  error: [error instanceof Error, error.name, error.errorCode],
}));
`;
const ESM_PROBE = `const load = (name) => import(name);\nconst where = (name) => import.meta.resolve(name);\n${PROBE}`;
const CJS_PROBE = `const load = async (name) => require(name);\nconst where = (name) => require.resolve(name);\n(async () => {\n${PROBE}\n})();`;

/**
 * A consumer that uses every kind of export. The @ts-expect-error line fails
 * the check if the package's types are missing or `any`: the mistake it marks
 * would then not be one.
 */
const CONSUMER = `
import { TokenClient, TokenGatewayError, TokenRequestError, DEFAULT_RENEW_AFTER_MS, EXPIRY_MARGIN_MS, TOKEN_PATH, type FetchLike, type TokenClientOptions } from '@token-gateway/client';
import { JWKS_PATH, REVOKE_PATH } from '@token-gateway/client/paths';

const options: TokenClientOptions = {
  baseUrl: 'https://gw.example.com',
  clientId: 'app',
  clientSecret: 'secret',
  username: 'user',
  password: 'password',
  renewAfterMs: DEFAULT_RENEW_AFTER_MS - EXPIRY_MARGIN_MS,
};
const client = new TokenClient(options);
export const token: Promise<string> = client.getAccessToken();
export const response: Promise<Response> = client.fetch('/business/score/v2/directors', { headers: { accept: 'application/json' } });
export const asFetch: FetchLike = client.fetch;
export const paths: ['/oauth2/v1/token', '/oauth2/v1/revokeToken', '/oauth2/v1/keys'] = [TOKEN_PATH, REVOKE_PATH, JWKS_PATH];

export function explain(error: unknown): string {
  if (error instanceof TokenGatewayError) return \`\${error.status} \${error.errorCode} \${error.requestId ?? ''} \${error.retryAfter ?? ''}\`;
  if (error instanceof TokenRequestError) return \`\${error.status ?? 'no answer'}\`;
  return 'unknown';
}

// @ts-expect-error clientSecret is required
export const incomplete = new TokenClient({ baseUrl: 'https://gw.example.com', clientId: 'app', username: 'user', password: 'password' });
`;

interface TypecheckCase {
  /** How the test names it: resolution, module, files, where fetch's types come from, which build's declarations it reads. */
  name: string;
  moduleResolution: string;
  module: string;
  /** .ts is ESM or CommonJS as `module` says; under node16/nodenext .mts is ESM and .cts CommonJS. */
  files: string[];
  /** Where fetch's types come from: the DOM lib, or @types/node. */
  platform: 'dom' | 'node';
  /** The builds whose declarations TypeScript must have read. */
  reads: Array<'esm' | 'cjs'>;
}

const TYPECHECKS: TypecheckCase[] = [
  { name: 'node10, module commonjs, a .ts file, DOM lib: dist/cjs', moduleResolution: 'node10', module: 'commonjs', files: ['consumer.ts'], platform: 'dom', reads: ['cjs'] },
  { name: 'node16, module node16, a .mts and a .cts file, DOM lib: dist/esm and dist/cjs', moduleResolution: 'node16', module: 'node16', files: ['consumer.mts', 'consumer.cts'], platform: 'dom', reads: ['cjs', 'esm'] },
  { name: 'nodenext, module nodenext, a .mts and a .cts file, DOM lib: dist/esm and dist/cjs', moduleResolution: 'nodenext', module: 'nodenext', files: ['consumer.mts', 'consumer.cts'], platform: 'dom', reads: ['cjs', 'esm'] },
  { name: 'nodenext, module nodenext, a .mts and a .cts file, @types/node: dist/esm and dist/cjs', moduleResolution: 'nodenext', module: 'nodenext', files: ['consumer.mts', 'consumer.cts'], platform: 'node', reads: ['cjs', 'esm'] },
  { name: 'bundler, module esnext, a .ts file, DOM lib: dist/esm', moduleResolution: 'bundler', module: 'esnext', files: ['consumer.ts'], platform: 'dom', reads: ['esm'] },
];

describe('@token-gateway/client as an application installs it (npm pack, then npm install of the tarball, offline)', () => {
  let installed: InstalledPackage;
  let folder: string;

  beforeAll(async () => {
    installed = await packAndInstall(PACKAGE);
    folder = join(installed.app, 'node_modules', '@token-gateway', 'client');
  }, 120_000);
  afterAll(async () => {
    if (installed) await rm(installed.work, { recursive: true, force: true });
  });

  it('ships package.json, the README and both builds of every module with its declarations; no sources, tests or maps', async () => {
    const modules = await sourceModules();
    const builds = modules.flatMap((module) => ['esm', 'cjs'].flatMap((format) => [`dist/${format}/${module}.js`, `dist/${format}/${module}.d.ts`]));
    const expected = ['package.json', 'README.md', 'dist/cjs/package.json', ...builds].sort();
    expect(installed.packed.files.map((file) => file.path).sort()).toEqual(expected);
    expect(JSON.parse(await readFile(join(folder, 'dist', 'cjs', 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
  });

  it(`adds exactly one package, with no dependency of any kind, under ${UNPACKED_BOUND / 1000} KB unpacked`, async () => {
    expect(installed.installOutput).toMatch(/added 1 package\b/);
    const lock = JSON.parse(await readFile(join(installed.app, 'node_modules', '.package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    expect(Object.keys(lock.packages)).toEqual(['node_modules/@token-gateway/client']);
    expect((await readdir(join(installed.app, 'node_modules'))).sort()).toEqual(['.package-lock.json', '@token-gateway']);
    const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as Record<string, unknown>;
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies']) expect({ field, value: manifest[field] }).toEqual({ field, value: undefined });
    // npm's count and the bytes on disk after the install: both under the bound.
    expect(installed.packed.unpackedSize).toBeLessThan(UNPACKED_BOUND);
    expect(await folderSize(folder)).toBeLessThan(UNPACKED_BOUND);
  });

  it('gives import() the ES module build and require() the CommonJS one, with the same names and behaviour', async () => {
    await writeFile(join(installed.app, 'probe.mjs'), ESM_PROBE);
    await writeFile(join(installed.app, 'probe.cjs'), CJS_PROBE);
    const probe = async (file: string) => {
      const { stdout } = await run(process.execPath, [file], { cwd: installed.app, env: userEnvironment() });
      return JSON.parse(stdout) as { files: string[] } & Record<string, unknown>;
    };
    const { files: esmFiles, ...esm } = await probe('probe.mjs');
    const { files: cjsFiles, ...cjs } = await probe('probe.cjs');
    expect(esmFiles).toEqual([pathToFileURL(join(folder, 'dist/esm/index.js')).href, pathToFileURL(join(folder, 'dist/esm/paths.js')).href]);
    expect(cjsFiles).toEqual([join(folder, 'dist/cjs/index.js'), join(folder, 'dist/cjs/paths.js')]);
    expect(esm).toEqual({
      main: MAIN_NAMES,
      paths: PATH_NAMES,
      samePaths: true,
      tokenPath: '/oauth2/v1/token',
      renewAfterMs: 28 * 60_000,
      refused: 'TypeError: baseUrl must be an http:// or https:// URL',
      error: [true, 'TokenGatewayError', 'INVALID_CLIENT_CREDENTIALS'],
    });
    expect(cjs).toEqual(esm);
  });

  it.each(TYPECHECKS.map((typecheck) => [typecheck.name, typecheck] as const))(
    'type-checks a consumer under moduleResolution %s',
    async (_, { moduleResolution, module, files, platform, reads }) => {
      const app = installed.app;
      for (const file of files) await writeFile(join(app, file), CONSUMER);
      const project = `tsconfig.${moduleResolution}.${platform}.json`;
      const fetchTypes = platform === 'dom' ? { lib: ['ES2022', 'DOM'], types: [] } : { lib: ['ES2022'], types: ['node'], typeRoots: [NODE_TYPES] };
      const compilerOptions = { strict: true, noEmit: true, skipLibCheck: false, target: 'ES2022', module, moduleResolution, ...fetchTypes };
      await writeFile(join(app, project), JSON.stringify({ compilerOptions, files }, null, 2));
      const { code, output } = await run(process.execPath, [TSC, '-p', project, '--listFiles'], { cwd: app }).then(
        ({ stdout }) => ({ code: 0, output: stdout }),
        (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, output: error.stdout ?? String(error) }),
      );
      const lines = output.split('\n');
      expect({ code, errors: lines.filter((line) => line.includes('error TS')) }).toEqual({ code: 0, errors: [] });
      const read = lines.filter((line) => line.startsWith(`${folder}/dist/`)).map((line) => line.slice(folder.length + 1));
      const formats = [...new Set(read.map((file) => file.split('/')[1]))].sort();
      expect(formats).toEqual(reads);
      for (const format of reads) expect(read).toEqual(expect.arrayContaining([`dist/${format}/index.d.ts`, `dist/${format}/paths.d.ts`]));
    },
    60_000,
  );
});
