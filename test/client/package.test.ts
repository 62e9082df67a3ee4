import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as Sdk from '@token-gateway/client';
import type * as Alias from 'token-gateway/client';

const ROOT = resolve('.');

interface PackageJson {
  name: string;
  version: string;
  files: string[];
  exports: Record<string, { types: string; default: string }>;
  dependencies: Record<string, string>;
}

const packageJson = async (folder: string): Promise<PackageJson> => JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as PackageJson;

// The SDK's own tests, its packaging included, are in packages/client/test; this
// file holds the gateway package to its promise that `token-gateway/client` still works.
describe('the token-gateway/client entry point, an alias of @token-gateway/client', () => {
  it('is the very module of @token-gateway/client, resolved through the gateway package in Node (npm test builds both first)', async () => {
    const gateway = await packageJson(ROOT);
    const client = await packageJson(join(ROOT, 'packages/client'));
    expect(gateway.name).toBe('token-gateway');
    expect(gateway.exports['./client']).toEqual({ types: './client/index.d.ts', default: './client/index.js' });
    expect(gateway.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    expect(gateway.files).toContain('client');
    // Exactly the workspace's version: the alias re-exports the SDK released with this gateway, never another.
    expect(client.name).toBe('@token-gateway/client');
    expect(gateway.dependencies['@token-gateway/client']).toBe(client.version);
    // A separate node process: Node's own resolver, exactly what an application that installed the package runs.
    const script = [
      "const alias = await import('token-gateway/client');",
      "const sdk = await import('@token-gateway/client');",
      'const names = Object.keys(alias).sort();',
      'const same = names.length === Object.keys(sdk).length && names.every((name) => alias[name] === sdk[name]);',
      'console.log(JSON.stringify({ names, same }));',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    const { names, same } = JSON.parse(stdout) as { names: string[]; same: boolean };
    expect(names).toEqual(expect.arrayContaining(['DEFAULT_RENEW_AFTER_MS', 'EXPIRY_MARGIN_MS', 'TokenClient', 'TokenGatewayError', 'TokenRequestError']));
    expect(same).toBe(true);
    // Checked by `npm run typecheck` (tsc resolves both names as an application would): the alias's types are the SDK's.
    expectTypeOf<typeof Alias>().toEqualTypeOf<typeof Sdk>();
    expectTypeOf<Alias.TokenClientOptions>().toEqualTypeOf<Sdk.TokenClientOptions>();
  });
});
