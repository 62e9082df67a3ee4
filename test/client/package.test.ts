import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve('.');
const CLIENT_SOURCES = resolve('src/client');

interface PackageJson {
  name: string;
  exports: Record<string, { types: string; default: string }>;
}

const packageJson = async (): Promise<PackageJson> => JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** Every module specifier in a TypeScript source: static imports and re-exports, and dynamic imports. */
function specifiersOf(source: string): string[] {
  const found = [...source.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((match) => match[1] ?? '');
  return found.filter((specifier) => specifier !== '');
}

describe('the token-gateway/client entry point', () => {
  it("resolves through the package's own name in Node, with its types (npm test builds dist/ first)", async () => {
    const { name, exports } = await packageJson();
    expect(name).toBe('token-gateway');
    expect(exports['./client']).toEqual({ types: './dist/client/index.d.ts', default: './dist/client/index.js' });
    expect(exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    // A separate node process: Node's own resolver, exactly what an application that installed the package runs.
    const script = "const m = await import('token-gateway/client'); console.log(JSON.stringify(Object.keys(m).sort()));";
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual(['DEFAULT_RENEW_AFTER_MS', 'EXPIRY_MARGIN_MS', 'TokenClient', 'TokenGatewayError', 'TokenRequestError']);
    const declarations = await readFile(join(ROOT, exports['./client']?.types ?? ''), 'utf8');
    expect(declarations).toContain('TokenClient');
    expect(declarations).toContain('TokenClientOptions');
  });

  it('imports nothing from the gateway and nothing from node: (it runs wherever fetch does)', async () => {
    const files = (await readdir(CLIENT_SOURCES)).filter((file) => file.endsWith('.ts'));
    expect(files).toContain('index.ts');
    for (const file of files) {
      const specifiers = specifiersOf(await readFile(join(CLIENT_SOURCES, file), 'utf8'));
      for (const specifier of specifiers) expect({ file, specifier }).toEqual({ file, specifier: expect.stringMatching(/^\.\/[\w-]+\.js$/) });
    }
  });
});
