import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, formatIssue } from '../../src/config/errors.js';
import { loadGatewayConfig } from '../../src/config/load.js';
import { startGateway } from '../../src/lifecycle/start.js';
import { readPolicyFolder } from '../../src/policies/policy-file.js';
import { accountsYaml } from '../helpers/accounts.js';

const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

async function folderWith(text: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'tg-policy-mode-'));
  folders.push(folder);
  await writeFile(join(folder, 'guard.yaml'), text);
  return folder;
}

const guard = (mode?: string) => `policies:\n  - name: guard\n    kind: regex-protection\n${mode === undefined ? '' : `    mode: ${mode}\n`}`;

describe('the fields every policy has: mode', () => {
  it('enforces unless told otherwise', async () => {
    const [definition] = await readPolicyFolder(await folderWith(guard()));
    expect(definition?.mode).toBe('enforce');
  });

  it.each(['enforce', 'report'])('accepts mode: %s on any kind', async (mode) => {
    const [definition] = await readPolicyFolder(await folderWith(guard(mode)));
    expect(definition?.mode).toBe(mode);
  });

  it.each([
    ['shadow', 'expected enforce or report, got "shadow"'],
    ['Report', 'expected enforce or report, got "Report"'],
    ['true', 'expected enforce or report, got true'],
  ])('refuses mode: %s with file, line, key and the values it takes', async (mode, message) => {
    const folder = await folderWith(guard(mode));
    const error = await readPolicyFolder(folder).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map(formatIssue)).toEqual([`${join(folder, 'guard.yaml')}:4: policies[0].mode: ${message}`]);
  });

  it('stops serve at start with the same file:line: key: message', async () => {
    const folder = await folderWith(guard('shadow'));
    const dir = await mkdtemp(join(tmpdir(), 'tg-policy-mode-serve-'));
    folders.push(dir);
    await writeFile(join(dir, 'accounts.yaml'), await accountsYaml());
    await writeFile(join(dir, 'gateway.yaml'), `listen: { port: 0 }\nadmin: { port: 0 }\naccounts: ./accounts.yaml\npolicies: { folder: ${folder}, defaults: [guard] }\n`);
    const config = await loadGatewayConfig(join(dir, 'gateway.yaml'));
    const error = await startGateway({ config, logDestination: { write: () => undefined } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map(formatIssue)).toEqual([`${join(folder, 'guard.yaml')}:4: policies[0].mode: expected enforce or report, got "shadow"`]);
  });
});
