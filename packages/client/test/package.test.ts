import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = join(PACKAGE, 'src');

/** Every module specifier in a TypeScript source: static imports and re-exports, and dynamic imports. */
function specifiersOf(source: string): string[] {
  const found = [...source.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((match) => match[1] ?? '');
  return found.filter((specifier) => specifier !== '');
}

describe('@token-gateway/client sources', () => {
  it('import nothing outside the package and nothing from node: (it runs wherever fetch does)', async () => {
    const files = (await readdir(SOURCES)).filter((file) => file.endsWith('.ts'));
    expect(files).toContain('index.ts');
    for (const file of files) {
      const specifiers = specifiersOf(await readFile(join(SOURCES, file), 'utf8'));
      for (const specifier of specifiers) expect({ file, specifier }).toEqual({ file, specifier: expect.stringMatching(/^\.\/[\w-]+\.js$/) });
    }
  });
});
