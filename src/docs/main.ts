import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_PAGES, regeneratePage } from './pages.js';

/**
 * `npm run docs`: rewrite the generated regions of the docs from the code.
 * Runs from dist/ after the build (the repository has no TypeScript runner);
 * test/docs/generated.test.ts runs the same functions from src/ and fails
 * when a committed page differs.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

for (const page of GENERATED_PAGES) {
  const file = join(root, page.page);
  const before = readFileSync(file, 'utf8');
  const after = regeneratePage(page, before);
  if (after !== before) writeFileSync(file, after);
  process.stdout.write(`${page.page}: ${after === before ? 'up to date' : 'updated'}\n`);
}
