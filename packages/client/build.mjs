/**
 * npm run build: src/ compiled twice, to dist/esm (ES modules) and dist/cjs
 * (CommonJS), each with its own declarations, so that `import` and `require`
 * both get a real module of their kind and every moduleResolution finds types
 * that describe it.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';

// Start empty: a module deleted from src/ must not linger in the next tarball.
rmSync('dist', { recursive: true, force: true });
// `tsc` from PATH: npm puts the workspace's (or the repository's) node_modules/.bin there.
for (const project of ['tsconfig.esm.json', 'tsconfig.cjs.json']) {
  execFileSync('tsc', ['-p', project], { stdio: 'inherit', shell: process.platform === 'win32' });
}
// The package is "type": "module"; without this marker Node would read dist/cjs/*.js
// as ES modules, and TypeScript its .d.ts files as ES module declarations.
writeFileSync('dist/cjs/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);
